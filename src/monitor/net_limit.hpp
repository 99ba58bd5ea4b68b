// The network-operation budget as one of husk's limits (run.husk.net-ops with run.husk.net-ops-kill;
// docs/network-policy.md): the kernel refuses every operation past the budget by itself (cgroup BPF, see
// cgroup/net_filter.hpp); the first one also writes to a ring buffer in the monitor's epoll set, and the
// monitor, once it reads the counter past the budget, records the cause and kills the container.
#pragma once

#include <memory>
#include <string>

#include "monitor/limits.hpp"

namespace husk::monitor {

// The kill needs the events ring of the container's network policy, made with its cgroup.
Result<void> check_net_limit(const StopPolicy& policy, const cgroup::Cgroup* cgroup, std::string_view no_cgroup);
std::unique_ptr<Watcher> watch_net_limit(LimitSetup& setup);
std::string net_limit_detail(const StopPolicy& policy, const ExitStatus& status, const state::StopCause* recorded);

}  // namespace husk::monitor
