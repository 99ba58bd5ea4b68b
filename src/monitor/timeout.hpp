// The wall-time limit (run.husk.timeout, kill-grace, stop-signal; docs/husk.8.md, "LIMITS"). It counts from the
// moment init execs the workload: the sync socket is close-on-exec, so its EOF without an exec_failed report is that
// moment (`start` alone is not: startContainer hooks run between the two, and a failed exec never starts the clock).
#pragma once

#include <memory>
#include <string>

#include "monitor/limits.hpp"

namespace husk::monitor {

// The cause recorded at the deadline, before any signal: what husk is about to do.
state::StopCause timeout_cause(const StopPolicy& policy);

std::unique_ptr<Watcher> watch_timeout(LimitSetup& setup);
// What actually happened after the deadline, from the monitor's own record of its actions (or the recorded
// cause, when this monitor did not see the deadline pass).
std::string timeout_detail(const StopPolicy& policy, const ExitStatus& status, const state::StopCause* recorded);

}  // namespace husk::monitor
