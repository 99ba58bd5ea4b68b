// The ENOSYS stub: a few BPF instructions placed in front of libseccomp's program so that a system call
// numbered above everything the profile names gets ENOSYS instead of the profile's default action. glibc
// (and others) treat ENOSYS as "this kernel is too old" and fall back (clone3 → clone, faccessat2 →
// faccessat); EPERM from a default-deny profile would be taken as a real refusal. Same idea as runc's
// libcontainer/seccomp/patchbpf. Not a public header.
#pragma once

#include <linux/filter.h>

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace husk::seccomp {

// The limits for one AUDIT_ARCH_* value, i.e. one value of seccomp_data.arch.
struct StubArch {
    std::uint32_t audit_arch = 0;
    // Highest syscall number the profile names on this arch; none = the stub leaves this arch alone.
    std::optional<std::uint32_t> max;
    // AUDIT_ARCH_X86_64 only: the same for x32 calls (numbers with the x32 bit, which `max_x32` includes).
    // The stub always tests that bit first on x86_64, so an x32 number never meets the x86_64 limit.
    std::optional<std::uint32_t> max_x32;
};

// Returns the stub; it falls through (jumps) to the instruction right after itself, where libseccomp's
// program starts, for every call it does not answer, including every arch not listed.
std::vector<sock_filter> make_enosys_stub(std::span<const StubArch> archs);

}  // namespace husk::seccomp
