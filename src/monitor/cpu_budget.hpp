// The CPU budget (run.husk.cpu-limit; docs/husk.8.md, "LIMITS"): CPU time of the container's whole cgroup (cpu.stat
// usage_usec counts every process in it, so forking does not escape). No polling: a timerfd is armed for the
// earliest moment the budget could run out, the remaining budget divided by the CPUs the container can run
// on at once, and re-armed from what is left when it fires early. An idle container costs one wakeup per
// remaining/cpus interval.
// Precision: the monitor itself is late by its wakeup latency (a loaded machine, a preempted vCPU) and by the
// shortest re-arm interval; each ms late is a ms of CPU per CPU. So where the kernel can (the cpu controller
// in the cgroup), every wakeup also holds the cgroup to what is left with cpu.max: the kernel then stops it
// at the budget within a tick and its bandwidth slack per CPU, however late the monitor is, and the monitor
// only has to find it stopped and kill it.
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
    // usage_usec while init waited for start (setup done, nothing run yet): the budget counts from there.
    // Read when the monitor notices the exec instead, it would miss what the workload ran until then, which
    // on a loaded machine can be a large part of a small budget. Nothing: read at exec.
    std::optional<std::uint64_t> baseline;
    // Called once when the budget is used up: records the cause durably, then kills the container.
    std::function<void(std::chrono::microseconds used)> on_exhausted;
    // Optional: lets the cgroup run at most `left` more until the next cpu.max period (false: it could not).
    std::function<bool(std::chrono::microseconds left)> hold;
    // Ends the hold after the kill, so the killed processes are not kept throttled on their way out.
    std::function<void()> release;
};

// While it lives, the thread asks the scheduler for a short time slice (sched_setattr sched_runtime, honoured
// by EEVDF since Linux 6.12, ignored before): a task with a shorter slice preempts others when it wakes, so
// the monitor reads cpu.stat promptly on a busy machine. Its share of CPU time stays what its nice value
// gives (a slice is not a priority): the monitor cannot become a hog through it, unlike a real-time policy,
// which would also let a busy output pump starve the machine. Put back when it ends.
class LatencyHint {
public:
    LatencyHint() = default;
    ~LatencyHint();
    LatencyHint(const LatencyHint&) = delete;
    LatencyHint& operator=(const LatencyHint&) = delete;
    void request();

private:
    bool set_ = false;
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
    // Init has exited: true when the budget was used up all the same (on_exhausted ran). A monitor that wakes
    // late finds the exit and its timer in one wakeup, or the workload used up the budget and exited before
    // the timer fired: the CPU it used past the budget still counts, as the output pump's bytes past the cap
    // found only while draining do.
    bool exhausted_at_exit();

private:
    Result<void> arm(std::chrono::microseconds after);
    // Holds the cgroup to `left` when that can matter, then arms the timer for the earliest exhaustion.
    Result<void> wait_for(std::chrono::microseconds left);
    void exhausted(std::chrono::microseconds used);

    const CpuBudget* config_;
    UniqueFd fd_;
    LatencyHint latency_;
    std::optional<std::uint64_t> baseline_;
    bool done_ = false;
};

}  // namespace husk::monitor
