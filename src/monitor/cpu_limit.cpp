#include "monitor/cpu_limit.hpp"

#include <unistd.h>

#include <algorithm>

#include "base/time.hpp"
#include "cgroup/cpu_hold.hpp"
#include "cgroup/stats.hpp"
#include "monitor/counters.hpp"
#include "monitor/cpu_budget.hpp"
#include "monitor/verdict.hpp"

namespace husk::monitor {
namespace {

std::string budget(const StopPolicy& policy) {
    return format_duration(std::chrono::duration_cast<std::chrono::milliseconds>(
        policy.cpu_limit.value_or(std::chrono::microseconds(0))));
}

// The CPU budget's timer in the monitor's loop.
class CpuLimitWatcher : public Watcher {
public:
    explicit CpuLimitWatcher(CpuBudget budget) : budget_(std::move(budget)), timer_(&budget_) {}
    Result<int> open() override {
        TRY(timer_.open());
        return timer_.fd();
    }
    Result<void> start() override { return timer_.start(); }
    void on_ready(bool init_exited, Enforced& enforced) override {
        if (!init_exited && timer_.expired()) enforced.fire(Reason::cpu_limit);
    }
    // A workload that used up its budget and exited before the timer was acted on still hit the limit.
    void on_init_exit(Enforced& enforced) override {
        if (timer_.exhausted_at_exit()) enforced.fire(Reason::cpu_limit);
    }

private:
    CpuBudget budget_;
    CpuBudgetTimer timer_;
};

}  // namespace

state::StopCause cpu_limit_cause(const StopPolicy& policy, std::chrono::microseconds used) {
    state::StopCause cause;
    cause.reason = reason_name(Reason::cpu_limit);
    cause.detail = "CPU budget " + budget(policy) + " used up (cpu.stat usage_usec +" + std::to_string(used.count()) +
                   " since start); killing the container";
    cause.at = now_rfc3339_nano();
    return cause;
}

Result<void> check_cpu_limit(const StopPolicy& policy, const cgroup::Cgroup* cgroup, std::string_view no_cgroup) {
    if (!policy.cpu_limit) return {};
    const char* what = "annotations[\"run.husk.cpu-limit\"]: ";
    if (cgroup == nullptr)
        return fail_msg(std::string(what) + "needs the container's cgroup (cpu.stat), and " + std::string(no_cgroup));
    auto counters = cgroup::read_keyed_counters(cgroup->dir_fd(), "cpu.stat", cgroup->location().where());
    if (!counters) return fail(counters.error().context(what));
    if (*counters)
        for (const auto& [key, value] : **counters)
            if (key == "usage_usec") return {};
    return fail_msg(std::string(what) + "cpu.stat of " + cgroup->location().where() + " has no usage_usec");
}

std::unique_ptr<Watcher> watch_cpu_limit(LimitSetup& setup) {
    const MonitorPlan& plan = setup.enforcer->plan();
    if (!plan.policy.cpu_limit) return nullptr;
    CpuBudget budget;
    budget.limit = *plan.policy.cpu_limit;
    // Online CPUs bound the container's parallelism from above: the timer may fire early, never late.
    budget.cpus = static_cast<unsigned>(std::max(::sysconf(_SC_NPROCESSORS_ONLN), 1L));
    budget.read_usage = [plan] { return read_cpu_usage(plan); };
    budget.baseline = read_cpu_usage(plan);  // init is still waiting for start here
    budget.on_exhausted = [enforcer = setup.enforcer](std::chrono::microseconds used) {
        enforcer->record_cause(cpu_limit_cause(enforcer->policy(), used));
        enforcer->kill();
    };
    // With the cpu controller the kernel also holds the container to what is left (cgroup/cpu_hold.hpp).
    if (auto hold = plan.cgroup ? cgroup::CpuHold::open(*plan.cgroup) : std::nullopt) {
        auto shared = std::make_shared<cgroup::CpuHold>(std::move(*hold));
        budget.hold = [shared](std::chrono::microseconds left) { return shared->hold(left).has_value(); };
        budget.release = [shared] { shared->release(); };
    }
    return std::make_unique<CpuLimitWatcher>(std::move(budget));
}

std::string cpu_limit_detail(const StopPolicy& policy, const ExitStatus&, const state::StopCause* recorded) {
    if (recorded) return recorded->detail;
    return "CPU budget " + budget(policy) + " used up; killing the container";
}

}  // namespace husk::monitor
