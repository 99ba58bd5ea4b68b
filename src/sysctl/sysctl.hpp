// linux.sysctl (runtime-spec config-linux.md "Sysctl"): kernel parameters written through the container's
// own /proc/sys. Only namespaced ones are accepted (spec/sysctl_rules.hpp), and only when the container's
// namespace of that kind is not the runtime's own, so a write changes the container only.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "husk/error.hpp"

namespace husk::sysctl {

struct SysctlEntry {
    std::string key;   // "net.ipv4.ip_forward", for messages
    std::string path;  // "net/ipv4/ip_forward", relative to /proc/sys
    std::string value;
};

struct SysctlPlan {
    std::vector<SysctlEntry> entries;
};

// The namespaces that isolate sysctls which the container joins by path: an fd of each (the one it will
// setns into), -1 when it makes a new one (or lists none: validation refused that already).
struct JoinedNamespaces {
    int ipc = -1;
    int network = -1;
    int uts = -1;
};

// Turns each key into a path below /proc/sys. Refused, naming the key: a name that is not plain
// (spec::check_sysctl_name), a sysctl no namespace isolates, and one whose namespace is joined by path
// and is the runtime's own or pid 1's (runc refuses net.* in a joined host network namespace too):
// writing it would change the host.
Result<SysctlPlan> prepare_sysctl(const std::map<std::string, std::string>& sysctl, const JoinedNamespaces& joined);

// Opens /proc/sys (after pivot_root: the container's /proc), checks it is procfs (fstatfs, not a file
// system mounted there to fool the runtime), then opens each entry beneath it with openat2
// RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_XDEV and writes the value. Run it before
// readonlyPaths makes /proc/sys read-only.
Result<void> apply_sysctl(const SysctlPlan& plan) noexcept;

}  // namespace husk::sysctl
