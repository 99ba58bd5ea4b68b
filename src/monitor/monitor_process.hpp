// The per-container monitor's life after init is created: detach, wait for init, record how it ended.
#pragma once

#include <sys/types.h>

#include <optional>

#include "monitor/output_limit.hpp"
#include "monitor/policy.hpp"
#include "monitor/wait.hpp"
#include "process/spawn.hpp"

namespace husk::monitor {

// Never returns. `report` is the socket to husk create, closed once the monitor is detached.
[[noreturn]] void run_monitor(const MonitorPlan& plan, process::Spawned init, Role role, int report,
                              std::optional<OutputPlumbing> output);

// SIGKILL to init by pid, for rollback after init exists but create failed later.
void kill_init(pid_t pid);

}  // namespace husk::monitor
