#include "monitor/net_limit.hpp"

#include "base/time.hpp"
#include "cgroup/net_maps.hpp"

namespace husk::monitor {
namespace {

std::string budget_text(const StopPolicy& policy) { return std::to_string(policy.net_ops.value_or(0)); }

state::StopCause net_limit_cause(const StopPolicy& policy, std::uint64_t count) {
    state::StopCause cause;
    cause.reason = reason_name(Reason::network_limit);
    cause.detail = "network-operation budget " + budget_text(policy) + " spent (" + std::to_string(count) +
                   " operations tried); killing the container";
    cause.at = now_rfc3339_nano();
    return cause;
}

// Wakes when the programs write the ring (the first operation past the budget), and acts only on the counter
// it reads then: a limit is recorded only when it was seen reached.
class NetLimitWatcher : public Watcher {
public:
    NetLimitWatcher(std::shared_ptr<const Enforcer> enforcer, std::shared_ptr<const cgroup::NetMaps> maps)
        : enforcer_(std::move(enforcer)), maps_(std::move(maps)) {}
    Result<int> open() override {
        events_.emplace(TRY(cgroup::NetEvents::open(maps_->events.get())));
        return maps_->events.get();
    }
    void on_ready(bool init_exited, Enforced& enforced) override {
        events_->consume();  // the ring is level-triggered: read, or the loop would wake again at once
        if (init_exited) return;
        check(enforced, Action::kill);
    }
    // Spent and exited before the wake-up was acted on: the limit was still reached.
    void on_init_exit(Enforced& enforced) override { check(enforced, Action::record_only); }

private:
    enum class Action { kill, record_only };
    void check(Enforced& enforced, Action action) {
        if (enforced.fired(Reason::network_limit)) return;
        auto count = cgroup::read_net_ops(*maps_);
        if (!count || *count <= *enforcer_->policy().net_ops) return;
        enforced.fire(Reason::network_limit);
        enforcer_->record_cause(net_limit_cause(enforcer_->policy(), *count));
        if (action == Action::kill) enforcer_->kill();
    }

    std::shared_ptr<const Enforcer> enforcer_;
    std::shared_ptr<const cgroup::NetMaps> maps_;
    std::optional<cgroup::NetEvents> events_;
};

}  // namespace

Result<void> check_net_limit(const StopPolicy& policy, const cgroup::Cgroup* cgroup, std::string_view no_cgroup) {
    if (!policy.net_ops_kill) return {};
    if (cgroup == nullptr || !cgroup->net_maps() || !cgroup->net_maps()->events)
        return fail_msg("annotations[\"run.husk.net-ops-kill\"]: needs the container's cgroup and its network "
                        "programs, and " + std::string(no_cgroup));
    return {};
}

std::unique_ptr<Watcher> watch_net_limit(LimitSetup& setup) {
    const MonitorPlan& plan = setup.enforcer->plan();
    if (!plan.policy.net_ops_kill || !plan.policy.net_ops || !plan.net || !plan.net->events) return nullptr;
    return std::make_unique<NetLimitWatcher>(setup.enforcer, plan.net);
}

std::string net_limit_detail(const StopPolicy& policy, const ExitStatus&, const state::StopCause* recorded) {
    if (recorded) return recorded->detail;
    return "network-operation budget " + budget_text(policy) + " spent; killing the container";
}

}  // namespace husk::monitor
