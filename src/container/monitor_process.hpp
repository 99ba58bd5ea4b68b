// The per-container monitor's life after init is created: detach, wait for init, record how it ended.
#pragma once

#include <string>

#include "monitor/wait.hpp"
#include "process/spawn.hpp"
#include "state/state_dir.hpp"

namespace husk::container {

// Never returns. `report` is the socket to husk create, closed once the monitor is detached.
[[noreturn]] void run_monitor(const std::string& state_path, process::Spawned init,
                              monitor::Role role, int report);

// Writes the exit into the record under the lock. A no-op when the container was deleted meanwhile, or when
// the record now belongs to another container of the same id (its init is not `init`).
void record_exit(const std::string& state_path, pid_t init, const monitor::ExitStatus& status);

// SIGKILL to init by pid, for rollback after init exists but create failed later.
void kill_init(pid_t pid);

}  // namespace husk::container
