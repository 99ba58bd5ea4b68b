// The CPU budget (DESIGN.md §4, run.husk.cpu-limit): CPU time of the container's whole cgroup (cpu.stat
// usage_usec counts every process in it, so forking does not escape). No polling: a timerfd is armed for the
// earliest moment the budget could run out, the remaining budget divided by the CPUs the container can run
// on at once, and re-armed from what is left when it fires early. An idle container costs one wakeup per
// remaining/cpus interval, a busy one is stopped within that bound of its budget.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>

#include "husk/error.hpp"
#include "husk/unique_fd.hpp"

namespace husk::monitor {

struct CpuBudget {
    std::chrono::microseconds limit{0};
    unsigned cpus = 1;  // an upper bound on parallelism: a bound too high fires early (harmless), never late
    std::function<std::optional<std::uint64_t>()> read_usage;  // cpu.stat usage_usec now, nothing if unreadable
    // Called once when the budget is used up: records the cause durably, then kills the container.
    std::function<void(std::chrono::microseconds used)> on_exhausted;
};

class CpuBudgetTimer {
public:
    explicit CpuBudgetTimer(const CpuBudget* config) : config_(config) {}
    Result<void> open();
    int fd() const { return fd_.get(); }
    // At exec: what the cgroup used before (setup, a reused cgroup's history) is not the workload's.
    Result<void> start();
    // The timer fired: true when the budget is used up and on_exhausted ran.
    bool expired();

private:
    Result<void> arm(std::chrono::microseconds after);

    const CpuBudget* config_;
    UniqueFd fd_;
    std::optional<std::uint64_t> baseline_;
    bool done_ = false;
};

}  // namespace husk::monitor
