// The CPU budget as one of husk's limits (run.husk.cpu-limit): its cause, its check and its watcher. The
// budget's timer and the kernel-side hold are monitor/cpu_budget.hpp and cgroup/cpu_hold.hpp.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "monitor/limits.hpp"

namespace husk::monitor {

// The container's cgroup used its CPU budget (`used` as read from cpu.stat): it is being killed.
state::StopCause cpu_limit_cause(const StopPolicy& policy, std::chrono::microseconds used);

// The budget counts cpu.stat usage_usec of the container's cgroup: without one, or without the counter, it could
// not be enforced (fail closed).
Result<void> check_cpu_limit(const StopPolicy& policy, const cgroup::Cgroup* cgroup, std::string_view no_cgroup);
std::unique_ptr<Watcher> watch_cpu_limit(LimitSetup& setup);
std::string cpu_limit_detail(const StopPolicy& policy, const ExitStatus& status, const state::StopCause* recorded);

}  // namespace husk::monitor
