// The container's cgroup counters the monitor reads: at the start (the baselines), for the CPU budget, and once
// init has ended, for the verdict and husk.usage, while the cgroup still exists (delete removes it only after
// the verdict is written). Each is nothing when it cannot be read (no cgroup, controller not enabled).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "monitor/policy.hpp"
#include "monitor/verdict.hpp"
#include "state/record.hpp"

namespace husk::monitor {

// memory.events oom_kill of the container's cgroup now.
std::optional<std::uint64_t> read_oom_kills(const std::optional<cgroup::CgroupLocation>& cgroup);
// pids.events max of the container's cgroup now: forks refused because pids.max was reached (cgroup-v2.rst).
std::optional<std::uint64_t> read_pids_max_hits(const std::optional<cgroup::CgroupLocation>& cgroup);
std::optional<std::uint64_t> read_pids_max_hits(int dir_fd, const std::string& where);
// memory.events max of the container's cgroup now: times its usage reached memory.max (cgroup-v2.rst).
std::optional<std::uint64_t> read_memory_max_hits(const std::optional<cgroup::CgroupLocation>& cgroup);
// cpu.stat usage_usec of the container's cgroup now.
std::optional<std::uint64_t> read_cpu_usage(const MonitorPlan& plan);

// After init has ended: the facts for the verdict (`oom`), husk.usage, and the factors (`pids-limit`,
// `memory-limit`, each counted from the plan's baselines; `network-denied`, from the policy's own fresh map).
struct FinalCounters {
    CgroupFacts facts;
    state::Usage usage;
    std::vector<state::Factor> factors;
};
FinalCounters read_final_counters(const MonitorPlan& plan);

}  // namespace husk::monitor
