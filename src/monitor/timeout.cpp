#include "monitor/timeout.hpp"

#include <sys/timerfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>

#include "base/sys.hpp"
#include "base/time.hpp"
#include "monitor/verdict.hpp"

namespace husk::monitor {
namespace {

std::string timeout_reached(const StopPolicy& policy) {
    return "wall-time limit " + (policy.timeout ? format_duration(*policy.timeout) : std::string("?")) + " reached";
}

std::string timeout_outcome(const StopPolicy& policy, const Enforced& enforced) {
    std::string text = timeout_reached(policy);
    std::string grace = format_duration(policy.grace);
    if (enforced.stop_signal_sent && enforced.killed)
        return text + "; sent " + signal_label(policy.stop_signal) + ", killed after the " + grace + " grace";
    if (enforced.stop_signal_sent) return text + "; sent " + signal_label(policy.stop_signal) +
                                          ", init ended within the " + grace + " grace";
    if (enforced.killed)
        return text + (policy.grace.count() == 0 ? "; killed at once (kill-grace 0)" : "; killed");
    return text + "; init ended before husk signalled it";
}

// A two-step timerfd (CLOCK_MONOTONIC: wall-clock jumps don't move the deadline): at the deadline, record the
// cause, then the stop signal and the grace; at the end of the grace, kill.
class WallTimer : public Watcher {
public:
    explicit WallTimer(std::shared_ptr<const Enforcer> enforcer) : enforcer_(std::move(enforcer)) {}

    Result<int> open() override {
        fd_.reset(::timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK));
        if (!fd_) return fail_sys(errno, "timerfd_create");
        return fd_.get();
    }
    Result<void> start() override {
        if (phase_ != Phase::idle) return {};
        phase_ = Phase::counting;
        return arm(*policy().timeout);
    }
    void on_ready(bool init_exited, Enforced& enforced) override {
        if (init_exited) return;  // init exiting in the same wakeup beat the deadline: it is not a timeout
        std::uint64_t ticks = 0;
        if (::read(fd_.get(), &ticks, sizeof ticks) != sizeof ticks) return;  // spurious: not expired yet
        if (phase_ == Phase::counting) {
            enforced.fire(Reason::timeout);
            enforcer_->record_cause(timeout_cause(policy()));
            if (policy().grace.count() > 0) {
                if (sys::pidfd_send_signal(enforcer_->pidfd(), policy().stop_signal) == 0)
                    enforced.stop_signal_sent = true;
                phase_ = Phase::grace;
                if (arm(policy().grace)) return;
            }
            // Grace 0, or a timer that cannot be armed again: kill now rather than never.
        } else if (phase_ != Phase::grace) {
            return;
        }
        phase_ = Phase::done;
        enforcer_->kill();
        enforced.killed = true;
    }

private:
    enum class Phase { idle, counting, grace, done };

    const StopPolicy& policy() const { return enforcer_->policy(); }

    Result<void> arm(std::chrono::milliseconds after) {
        itimerspec spec{};
        spec.it_value.tv_sec = static_cast<time_t>(after.count() / 1000);
        spec.it_value.tv_nsec = static_cast<long>(after.count() % 1000) * 1000000L;
        if (::timerfd_settime(fd_.get(), 0, &spec, nullptr) != 0) return fail_sys(errno, "timerfd_settime");
        return {};
    }

    std::shared_ptr<const Enforcer> enforcer_;
    UniqueFd fd_;
    Phase phase_ = Phase::idle;
};

}  // namespace

state::StopCause timeout_cause(const StopPolicy& policy) {
    state::StopCause cause;
    cause.reason = reason_name(Reason::timeout);
    cause.detail = timeout_reached(policy) + (policy.grace.count() == 0
                                                  ? "; killing at once (kill-grace 0)"
                                                  : "; sending " + signal_label(policy.stop_signal) +
                                                        ", killing after a " + format_duration(policy.grace) + " grace");
    cause.at = now_rfc3339_nano();
    return cause;
}

std::unique_ptr<Watcher> watch_timeout(LimitSetup& setup) {
    if (!setup.enforcer->policy().timeout) return nullptr;
    return std::make_unique<WallTimer>(setup.enforcer);
}

std::string timeout_detail(const StopPolicy& policy, const ExitStatus& status, const state::StopCause* recorded) {
    std::string detail = status.enforced.fired(Reason::timeout) || !recorded
                             ? timeout_outcome(policy, status.enforced)
                             : recorded->detail;
    if (!status.known) detail += "; the kernel did not report init's exit status (no PIDFD_INFO_EXIT)";
    return detail;
}

}  // namespace husk::monitor
