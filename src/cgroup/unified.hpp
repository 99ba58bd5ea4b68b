// linux.resources.unified (config-linux.md "Unified"): which cgroup v2 files a config may write. Keys are
// file names in the container's own cgroup, written verbatim; the cgroup core interface files are not
// limits (cgroup.procs moves a process in, cgroup.kill kills, cgroup.subtree_control reshapes the tree), so
// of them only the two that limit the container's own subtree are accepted (docs/security.md).
#pragma once

#include <string>
#include <string_view>

#include "husk/error.hpp"

namespace husk::cgroup {

// The controller whose file `key` is ("memory" for "memory.high"), or "" for the core limits
// cgroup.max.depth and cgroup.max.descendants. Refused, naming the key: anything that is not a plain file
// name "<controller>.<knob>" (a '/', "..", a leading or trailing dot, characters other than letters, digits,
// '_', '-' and '.'), and every other cgroup.* file.
Result<std::string> unified_key_controller(std::string_view key);

}  // namespace husk::cgroup
