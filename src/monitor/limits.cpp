#include "monitor/limits.hpp"

#include <array>
#include <csignal>

#include "base/sys.hpp"
#include "monitor/cpu_limit.hpp"
#include "monitor/net_limit.hpp"
#include "monitor/output_limit.hpp"
#include "monitor/record.hpp"
#include "monitor/timeout.hpp"

namespace husk::monitor {
namespace {

// One entry per limit; a new limit is an entry here, its reason in the stop-reasons table, and its watcher.
constexpr std::array<Limit, 4> all{{
    {Reason::timeout, nullptr, watch_timeout, timeout_detail},
    {Reason::cpu_limit, check_cpu_limit, watch_cpu_limit, cpu_limit_detail},
    {Reason::output_limit, nullptr, watch_output_limit, output_limit_detail},
    {Reason::network_limit, check_net_limit, watch_net_limit, net_limit_detail},
}};

}  // namespace

void Enforcer::record_cause(const state::StopCause& cause) const { monitor::record_cause(plan_, init_, cause); }

void Enforcer::kill() const {
    if (plan_.cgroup && cgroup::kill_all(*plan_.cgroup, SIGKILL)) return;
    sys::pidfd_send_signal(pidfd_, SIGKILL);
}

std::span<const Limit> limits() { return all; }

const Limit* find_limit(std::string_view reason) {
    for (const Limit& limit : all)
        if (reason_name(limit.reason) == reason) return &limit;
    return nullptr;
}

Result<void> check_limits(const StopPolicy& policy, const cgroup::Cgroup* cgroup, std::string_view no_cgroup) {
    for (const Limit& limit : all)
        if (limit.check) TRY(limit.check(policy, cgroup, no_cgroup));
    return {};
}

void add_limits(const MonitorPlan& plan, pid_t init, int pidfd, std::optional<OutputPlumbing> output,
                WaitOptions& options) {
    LimitSetup setup{std::make_shared<const Enforcer>(plan, init, pidfd), output};
    for (const Limit& limit : all)
        if (auto watcher = limit.watch(setup)) options.watchers.push_back(std::move(watcher));
}

}  // namespace husk::monitor
