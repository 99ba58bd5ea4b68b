// The per-container monitor's life after init is created: detach, wait for init, record how it ended.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "container/verdict.hpp"
#include "monitor/wait.hpp"
#include "process/spawn.hpp"
#include "state/state_dir.hpp"

namespace husk::container {

// What the monitor enforces and where it records it: the same for the detached monitor and `husk run`.
struct MonitorPlan {
    std::string state_path;
    StopPolicy policy;
    std::string cgroup_mount;  // empty: the container has no cgroup
    std::string cgroup_path;
    // memory.events oom_kill when the monitor began (a reused cgroup may have history); nothing without a
    // memory controller. The verdict counts the rise from here.
    std::optional<std::uint64_t> oom_kills_before;
};

// memory.events oom_kill of the container's cgroup now, or nothing (no cgroup, no memory controller).
std::optional<std::uint64_t> read_oom_kills(const std::string& cgroup_mount, const std::string& cgroup_path);

// Never returns. `report` is the socket to husk create, closed once the monitor is detached.
[[noreturn]] void run_monitor(const MonitorPlan& plan, process::Spawned init, monitor::Role role, int report);

// The wall-time limit for wait_for_exit, when the policy has one: records the cause in the state dir, then
// lets the wait loop signal init through `pidfd`; the final kill is cgroup.kill, or SIGKILL to init.
std::optional<monitor::WallTime> wall_time(const MonitorPlan& plan, pid_t init, int pidfd);

// Writes the verdict (decide_exit) into the record under the lock, in one atomic write. A no-op when the
// container was deleted meanwhile, or when the record now belongs to another container of the same id (its
// init is not `init`).
void record_exit(const MonitorPlan& plan, pid_t init, const monitor::ExitStatus& status);

// SIGKILL to init by pid, for rollback after init exists but create failed later.
void kill_init(pid_t pid);

}  // namespace husk::container
