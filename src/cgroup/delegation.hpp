// Without root (docs/rootless.md): the cgroup v2 subtree delegated to the caller, in which husk makes its
// containers' cgroups. The kernel lets an unprivileged process create cgroups in a directory it owns, move
// processes between two cgroups only when it may write cgroup.procs of their common ancestor, and enable a
// controller only where the parent offers it; systemd's Delegate=yes (and a directory chowned to the user,
// with its cgroup.procs, cgroup.subtree_control and cgroup.threads) grants exactly that.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "husk/error.hpp"

namespace husk::cgroup {

// The delegated subtree: the highest cgroup on the way from the v2 root down to husk's own (the "0::" line of
// /proc/self/cgroup) such that it and every cgroup below it on that way belong to `uid` and let it write
// cgroup.procs and cgroup.subtree_control. Nothing when husk's own cgroup is not the caller's. `own` is the
// path of husk's own cgroup, relative to the v2 root ("/a/b"); exposed for the tests.
Result<std::optional<std::string>> find_delegated_subtree(const std::string& mount, std::string_view own, uid_t uid);
// The same for this process.
Result<std::optional<std::string>> find_own_delegated_subtree(const std::string& mount);

// "/proc/self/cgroup"'s cgroup v2 path ("0::/a/b" → "/a/b").
Result<std::string> own_cgroup_path();

}  // namespace husk::cgroup
