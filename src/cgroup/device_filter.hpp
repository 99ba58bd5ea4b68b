// linux.resources.devices → a BPF_PROG_TYPE_CGROUP_DEVICE program (cgroup v2 has no devices.allow file).
//
// Semantics (runtime-spec config-linux.md "Allowed Device List", as runc and crun enforce it): rules apply
// in order and a later rule overrides an earlier one. Each requested access bit (r, w, m) is decided by the
// last rule whose type, major and minor match and whose access contains that bit; when no rule matches, the
// bit is allowed (cgroup v1's initial state), so the usual list starts with {allow:false, access:rwm}.
// An access made of several bits (open O_RDWR asks r and w at once) is allowed only if every bit is.
// Type "a" (or none) matches char and block devices; a given major or minor still narrows the match.
#pragma once

#include <linux/bpf.h>

#include <string>
#include <vector>

#include "husk/error.hpp"
#include "husk/spec.hpp"

namespace husk::cgroup {

// The rules the container gets: the spec's own, then what runc and crun append (mknod of any node, the
// devices every container has, each of linux.devices). The last matching rule wins.
std::vector<spec::DeviceRule> with_default_devices(const std::vector<spec::DeviceRule>& rules, const spec::Spec& spec);

// Pure: validates the rules (type a/c/b, access ⊆ rwm, major/minor in range) and emits the program.
Result<std::vector<bpf_insn>> compile_device_program(const std::vector<spec::DeviceRule>& rules);

// The name husk gives its device programs (BPF_OBJ_NAME_LEN includes the NUL).
inline constexpr char device_program_name[16] = "husk_devices";

// bpf(BPF_PROG_LOAD) the program, then bpf(BPF_PROG_ATTACH) it to the cgroup directory fd with
// BPF_CGROUP_DEVICE and BPF_F_ALLOW_MULTI. `where` names the cgroup in errors.
Result<void> attach_device_program(int cgroup_fd, const std::vector<bpf_insn>& program, const std::string& where);

// For `update`: attaches the new program, then detaches the husk device programs that were attached to the
// cgroup before (BPF_PROG_QUERY; others' programs are left alone).
Result<void> replace_device_program(int cgroup_fd, const std::vector<bpf_insn>& program, const std::string& where);

}  // namespace husk::cgroup
