#include "monitor/cpu_budget.hpp"

#include <sys/timerfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace husk::monitor {
namespace {

// Below this the timer would wake too often for too little: the overshoot stays under cpus × 10 ms.
constexpr std::chrono::microseconds min_interval{10000};

}  // namespace

Result<void> CpuBudgetTimer::open() {
    fd_.reset(::timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK));
    if (!fd_) return fail_sys(errno, "timerfd_create");
    return {};
}

Result<void> CpuBudgetTimer::start() {
    if (baseline_ || done_) return {};
    baseline_ = config_->read_usage().value_or(0);
    return arm(config_->limit / std::max(config_->cpus, 1u));
}

bool CpuBudgetTimer::expired() {
    std::uint64_t ticks = 0;
    if (::read(fd_.get(), &ticks, sizeof ticks) != sizeof ticks || done_ || !baseline_) return false;
    auto now = config_->read_usage();
    if (!now) {  // the cgroup is gone: the container is ending anyway
        done_ = true;
        return false;
    }
    auto used = std::chrono::microseconds(*now > *baseline_ ? *now - *baseline_ : 0);
    if (used >= config_->limit) {
        done_ = true;
        if (config_->on_exhausted) config_->on_exhausted(used);
        return true;
    }
    auto left = (config_->limit - used) / std::max(config_->cpus, 1u);
    if (!arm(std::max(left, min_interval))) {  // cannot wait any more: enforce now rather than never
        done_ = true;
        if (config_->on_exhausted) config_->on_exhausted(used);
        return true;
    }
    return false;
}

Result<void> CpuBudgetTimer::arm(std::chrono::microseconds after) {
    after = std::max(after, std::chrono::microseconds(1));
    itimerspec spec{};
    spec.it_value.tv_sec = static_cast<time_t>(after.count() / 1000000);
    spec.it_value.tv_nsec = static_cast<long>(after.count() % 1000000) * 1000L;
    if (::timerfd_settime(fd_.get(), 0, &spec, nullptr) != 0) return fail_sys(errno, "timerfd_settime");
    return {};
}

}  // namespace husk::monitor
