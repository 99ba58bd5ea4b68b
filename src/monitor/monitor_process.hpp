// The per-container monitor's life after init is created: detach, wait for init, record how it ended.
#pragma once

#include <sys/types.h>

#include <functional>
#include <optional>

#include "monitor/caller_watch.hpp"

#include "monitor/output_limit.hpp"
#include "monitor/policy.hpp"
#include "monitor/wait.hpp"
#include "process/spawn.hpp"

namespace husk::monitor {

// What --die-with-parent asks of the monitor: the caller to watch, and the delete to run once the caller's death
// killed the container and the monitor recorded it.
struct Orphaning {
    Caller caller;
    std::function<void()> delete_container;
};

// Never returns. `report` is the socket to husk create, closed once the monitor is detached.
[[noreturn]] void run_monitor(const MonitorPlan& plan, process::Spawned init, Role role, int report,
                              std::optional<OutputPlumbing> output, std::optional<Orphaning> orphaning = {});

// SIGKILL to init by pid, for rollback after init exists but create failed later.
void kill_init(pid_t pid);

}  // namespace husk::monitor
