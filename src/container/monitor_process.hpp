// The per-container monitor's life after init is created: detach, wait for init, record how it ended.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "cgroup/location.hpp"
#include "container/verdict.hpp"
#include "monitor/wait.hpp"
#include "process/spawn.hpp"
#include "state/state_dir.hpp"

namespace husk::container {

// What the monitor enforces and where it records it: the same for the detached monitor and `husk run`.
struct MonitorPlan {
    std::string state_path;
    StopPolicy policy;
    std::optional<cgroup::CgroupLocation> cgroup;  // nothing: the container has no cgroup
    // memory.events oom_kill when the monitor began (a reused cgroup may have history); nothing without a
    // memory controller. The verdict counts the rise from here.
    std::optional<std::uint64_t> oom_kills_before;
    // pids.events max then: forks refused at pids.max, reported as the factor `pids-limit`.
    std::optional<std::uint64_t> pids_max_before;
};

// The output pump's ends (run.husk.output-limit), opened before init is cloned: init gets the pipes' write
// ends as stdout/stderr, the monitor keeps the read ends and the stdio husk was given.
struct OutputPlumbing {
    monitor::PumpPipes pipes;
    UniqueFd stdout_out, stderr_out;
};

// Nothing when the policy has no output cap.
Result<std::optional<OutputPlumbing>> open_output_plumbing(const StopPolicy& policy);

// memory.events oom_kill of the container's cgroup now, or nothing (no cgroup, no memory controller).
std::optional<std::uint64_t> read_oom_kills(const std::optional<cgroup::CgroupLocation>& cgroup);
// pids.events max of the container's cgroup now, or nothing (no cgroup, no pids controller).
std::optional<std::uint64_t> read_pids_max_hits(const std::optional<cgroup::CgroupLocation>& cgroup);

// Never returns. `report` is the socket to husk create, closed once the monitor is detached.
[[noreturn]] void run_monitor(const MonitorPlan& plan, process::Spawned init, monitor::Role role, int report,
                              std::optional<OutputPlumbing> output);

// What the monitor enforces while it waits, added to `options`: the wall-time limit, the CPU budget, the output
// cap (the pump takes the plumbing's read ends; the write ends, init's now, are closed here). Each records
// its cause in the state dir before acting (DESIGN.md §2); the kill is cgroup.kill, or SIGKILL to init.
void add_limits(const MonitorPlan& plan, pid_t init, int pidfd, std::optional<OutputPlumbing> output,
                monitor::WaitOptions& options);

// Writes the verdict (decide_exit) into the record under the lock, in one atomic write. A no-op when the
// container was deleted meanwhile, or when the record now belongs to another container of the same id (its
// init is not `init`). Returns the verdict it decided, nothing when there was no record to decide on.
std::optional<state::ExitRecord> record_exit(const MonitorPlan& plan, pid_t init, const monitor::ExitStatus& status);

// SIGKILL to init by pid, for rollback after init exists but create failed later.
void kill_init(pid_t pid);

}  // namespace husk::container
