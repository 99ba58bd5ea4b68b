// linux.sysctl (runtime-spec config-linux.md "Sysctl"): kernel parameters written through the container's
// own /proc/sys, so namespaced ones (net.*, kernel.shm*, ...) change only inside the container.
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

// Turns each key into a path below /proc/sys. A key with '/', a NUL, or an empty component (which also
// covers "..": it splits into empty components) is refused: the path must stay a plain sysctl name.
Result<SysctlPlan> prepare_sysctl(const std::map<std::string, std::string>& sysctl);

// Opens /proc/sys (after pivot_root: the container's /proc), checks it is procfs (fstatfs, not a file
// system mounted there to fool the runtime), then opens each entry beneath it with openat2
// RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_XDEV and writes the value. Run it before
// readonlyPaths makes /proc/sys read-only.
Result<void> apply_sysctl(const SysctlPlan& plan) noexcept;

}  // namespace husk::sysctl
