// The per-container monitor's life after init is created: detach, wait for init, record how it ended.
#pragma once

#include <sys/types.h>

#include <optional>

#include "monitor/caller_watch.hpp"

#include "monitor/output_limit.hpp"
#include "monitor/policy.hpp"
#include "monitor/wait.hpp"
#include "process/spawn.hpp"

namespace husk::monitor {

// Never returns. `report` is the socket to husk create, closed once the monitor is detached. With `caller`
// (--die-with-parent) the caller's death kills the container; the monitor records that verdict like any other
// and leaves the stopped container for `husk state` to read and `husk delete` or `husk gc` to remove.
[[noreturn]] void run_monitor(const MonitorPlan& plan, process::Spawned init, Role role, int report,
                              std::optional<OutputPlumbing> output, std::optional<Caller> caller = {});

// SIGKILL to init by pid, for rollback after init exists but create failed later.
void kill_init(pid_t pid);

}  // namespace husk::monitor
