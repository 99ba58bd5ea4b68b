// A cgroup above the container's own that several containers share, so that the kernel enforces its
// memory.max, pids.max and cpu.max across all of them at once: a tenant's ceilings (docs/tenants.md,
// "Cgroup ceilings"). It lives in husk's subtree, below /husk/tenants, which no other container may use.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cgroup/hierarchy.hpp"
#include "cgroup/limits.hpp"
#include "husk/error.hpp"

namespace husk::cgroup {

struct CgroupPlan;

// cpu.max's period for a quota given in CPUs (the kernel's default, and husk sandbox --cpus's).
inline constexpr std::uint64_t shared_cpu_period_usec = 100000;

struct SharedParent {
    std::string name;                           // the cgroup /husk/tenants/<name>
    std::string owner;                          // for errors: "tenant \"acme\""
    std::optional<std::uint64_t> memory_bytes;  // memory.max (memory.swap.max 0: swap cannot get round it)
    std::optional<std::uint64_t> pids;          // pids.max
    std::optional<std::uint64_t> cpu_quota_usec;  // cpu.max "<quota> 100000"
};

// The writes to the shared parent, in order; the controllers they need.
std::vector<LimitWrite> shared_parent_writes(const SharedParent& parent);

// Puts the planned container cgroup below /husk/tenants/<name>: an empty cgroupsPath becomes
// /husk/tenants/<name>/<id>, a relative one /husk/tenants/<name>/<path>; an absolute one is refused (the
// caller chose a place outside the shared parent), as is a disabled cgroup manager. Each limit's controller
// must be offered by the v2 hierarchy (fail closed, naming it and the hybrid layout). create_cgroup then
// writes the limits once the container's cgroup exists below it.
Result<void> place_under_shared_parent(CgroupPlan& plan, SharedParent parent, std::string_view cgroups_path,
                                       std::string_view container_id);

// Whether this host's cgroup v2 hierarchy offers each limit's controller: an error naming the limit, the controller
// and the layout otherwise (as at create), or that there is no cgroup v2 hierarchy at all.
Result<void> check_shared_parent(const SharedParent& parent);

// Writes the limits into the shared parent, open at dir_fd, and reads each back.
Result<void> apply_shared_parent(int dir_fd, const std::string& where, const SharedParent& parent);

}  // namespace husk::cgroup
