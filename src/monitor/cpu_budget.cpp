#include "monitor/cpu_budget.hpp"

#include <sched.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>

namespace husk::monitor {
namespace {

using std::chrono::microseconds;

// Below this the timer would wake too often for too little: without a hold the overshoot stays under
// cpus × (10 ms + the monitor's wakeup latency).
constexpr microseconds min_interval{10000};
// A hold matters once the container could run more than is left within one cpu.max period (at most 1 s).
constexpr microseconds hold_period{1000000};
// CFS hands the quota out in slices to each CPU's run queue; a queue the container is not running on keeps
// up to 1 ms (min_cfs_rq_runtime, kernel/sched/fair.c). Held to exactly what is left, the container could be
// throttled just short of the budget until the next period; with this margin per CPU it runs past it and the
// monitor finds it used up.
constexpr microseconds hold_margin_per_cpu{1000};
// The short slice the monitor asks for (the kernel takes 0.1 ms to 100 ms).
constexpr std::uint64_t monitor_slice_ns = 100000;

// struct sched_attr of sched_setattr(2), SCHED_ATTR_SIZE_VER0: <linux/sched/types.h> clashes with glibc's
// struct sched_param, and glibc 2.36 has no wrapper.
struct sched_attr {
    std::uint32_t size;
    std::uint32_t sched_policy;
    std::uint64_t sched_flags;
    std::int32_t sched_nice;
    std::uint32_t sched_priority;
    std::uint64_t sched_runtime, sched_deadline, sched_period;
};
static_assert(sizeof(sched_attr) == 48, "SCHED_ATTR_SIZE_VER0");

int sched_getattr(sched_attr* attr) {
    return static_cast<int>(::syscall(SYS_sched_getattr, 0, attr, sizeof *attr, 0));
}
int sched_setattr(const sched_attr* attr) { return static_cast<int>(::syscall(SYS_sched_setattr, 0, attr, 0)); }

}  // namespace

void LatencyHint::request() {
    sched_attr attr{};
    if (set_ || sched_getattr(&attr) != 0 || attr.sched_policy != SCHED_OTHER) return;  // best effort
    attr.size = sizeof attr;
    attr.sched_flags = 0;
    attr.sched_runtime = monitor_slice_ns;  // the nice value read above stays as it is
    set_ = sched_setattr(&attr) == 0;
}

LatencyHint::~LatencyHint() {
    sched_attr attr{};
    if (!set_ || sched_getattr(&attr) != 0) return;
    attr.size = sizeof attr;
    attr.sched_flags = 0;
    attr.sched_runtime = 0;  // 0: the kernel's default slice again
    (void)sched_setattr(&attr);
}

Result<void> CpuBudgetTimer::open() {
    fd_.reset(::timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK));
    if (!fd_) return fail_sys(errno, "timerfd_create");
    latency_.request();
    return {};
}

Result<void> CpuBudgetTimer::start() {
    if (baseline_ || done_) return {};
    baseline_ = config_->baseline ? *config_->baseline : config_->read_usage().value_or(0);
    return wait_for(config_->limit);
}

bool CpuBudgetTimer::expired() {
    std::uint64_t ticks = 0;
    if (::read(fd_.get(), &ticks, sizeof ticks) != sizeof ticks || done_ || !baseline_) return false;
    auto now = config_->read_usage();
    if (!now) {  // the cgroup is gone: the container is ending anyway
        done_ = true;
        return false;
    }
    auto used = microseconds(*now > *baseline_ ? *now - *baseline_ : 0);
    if (used >= config_->limit) {
        exhausted(used);
        return true;
    }
    if (!wait_for(config_->limit - used)) {  // cannot wait any more: enforce now rather than never
        exhausted(used);
        return true;
    }
    return false;
}

bool CpuBudgetTimer::exhausted_at_exit() {
    if (done_ || !baseline_) return false;
    auto now = config_->read_usage();
    if (!now) return false;  // the cgroup is gone: nothing to go by
    auto used = microseconds(*now > *baseline_ ? *now - *baseline_ : 0);
    if (used < config_->limit) return false;
    exhausted(used);
    return true;
}

Result<void> CpuBudgetTimer::wait_for(microseconds left) {
    unsigned cpus = std::max(config_->cpus, 1u);
    // The hold is renewed at every wakeup with what is left then, so it never lets more through than the
    // budget (a failed write leaves the timer alone in charge, as without the cpu controller).
    if (config_->hold && left < hold_period * cpus) (void)config_->hold(left + hold_margin_per_cpu * cpus);
    // timerfd has no timer slack (an hrtimer, unlike poll/epoll timeouts): it fires at the time asked.
    return arm(std::max(left / cpus, min_interval));
}

void CpuBudgetTimer::exhausted(microseconds used) {
    done_ = true;
    // Recording the cause (an fsync) comes before the kill and may be slow: meanwhile each new cpu.max period
    // would hand the container another held quota, so hold it at the kernel's smallest one.
    if (config_->hold) (void)config_->hold(microseconds(0));
    if (config_->on_exhausted) config_->on_exhausted(used);
    if (config_->release) config_->release();
}

Result<void> CpuBudgetTimer::arm(microseconds after) {
    after = std::max(after, microseconds(1));
    itimerspec spec{};
    spec.it_value.tv_sec = static_cast<time_t>(after.count() / 1000000);
    spec.it_value.tv_nsec = static_cast<long>(after.count() % 1000000) * 1000L;
    if (::timerfd_settime(fd_.get(), 0, &spec, nullptr) != 0) return fail_sys(errno, "timerfd_settime");
    return {};
}

}  // namespace husk::monitor
