// What the monitor writes into the container's record (state.json), each time under the exclusive lock in one
// atomic write: the cause of a stop it makes, before it acts, and the verdict once init has ended.
#pragma once

#include <sys/types.h>

#include <optional>

#include "monitor/policy.hpp"
#include "monitor/watcher.hpp"
#include "state/record.hpp"

namespace husk::monitor {

// A no-op when a cause is recorded already (the first limit stays the reason), when the container was deleted,
// or when the record now belongs to another container of the same id (its init is not `init`).
void record_cause(const MonitorPlan& plan, pid_t init, const state::StopCause& cause);

// Writes the verdict (decide_exit, with the cgroup's final counters) into the record. A no-op in the same cases.
// Returns the record with the verdict it decided, nothing when there was no record to decide on.
std::optional<state::Record> record_exit(const MonitorPlan& plan, pid_t init, const ExitStatus& status);

// The container's state dir is gone (removed under it: `rm -rf` of the state root), so its record is lost and
// no `husk delete` will ever find it.
bool state_dir_lost(const MonitorPlan& plan);
// Kills what is left in the container's cgroup and removes it, when the directory at its path is still the one
// the plan holds (held_cgroup): what the monitor does when its record is lost, since nobody else will.
Result<void> remove_lost_cgroup(const MonitorPlan& plan);

}  // namespace husk::monitor
