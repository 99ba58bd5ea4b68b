// Handing controllers down the v2 tree: a controller works in a cgroup only when every ancestor lists it in
// cgroup.subtree_control (cgroup-v2.rst "Enabling and Disabling").
#pragma once

#include <string>
#include <vector>

#include "cgroup/location.hpp"
#include "husk/error.hpp"

namespace husk::cgroup {

// The controllers husk enables when it can, so the container's usage counters (memory.current, pids.current,
// cpu.stat, io.stat) exist even without limits.
inline const std::vector<std::string> usage_controllers = {"memory", "pids", "cpu", "io"};

// Writes "+<controller>" to cgroup.subtree_control of each ancestor of the cgroup, from the v2 root (root_fd) down
// to the leaf's parent; never the leaf's own. `required` ones fail the call, naming the cgroup (EBUSY: the
// "no internal processes" rule); `best_effort` ones are enabled where that cgroup's cgroup.controllers lists
// them, ignoring errors. Nothing is disabled again: other cgroups below may rely on it.
Result<void> enable_controllers(int root_fd, const CgroupLocation& cgroup,
                                const std::vector<std::string>& required, const std::vector<std::string>& best_effort);

}  // namespace husk::cgroup
