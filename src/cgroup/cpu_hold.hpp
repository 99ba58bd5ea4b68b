// Holding a container to what is left of its CPU budget (run.husk.cpu-limit) with cpu.max, so that a monitor
// that wakes late (a loaded machine, a preempted vCPU) cannot let it run far past the budget: CFS bandwidth
// control stops the cgroup once it has run the quota in the current period, on every CPU, within about a
// tick (Documentation/scheduler/sched-bwc.rst). Only where the cpu controller is enabled in the cgroup.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

#include "cgroup/location.hpp"
#include "husk/error.hpp"
#include "husk/unique_fd.hpp"

namespace husk::cgroup {

// The cpu.max that lets the cgroup run at most `left` more until the next period boundary, never looser than
// `current` (what is there: "QUOTA PERIOD" from the config or `husk update`, or "max PERIOD"). With a quota:
// its period and min(quota, left), or the 1 s period once `left` is at most half the quota; without: the
// longest period the kernel takes (1 s) and `left`. The kernel's smallest quota (1 ms) is the floor. Nothing
// when `current` does not read as cpu.max.
std::optional<std::string> held_cpu_max(std::string_view current, std::chrono::microseconds left);

class CpuHold {
public:
    // Nothing when the cgroup has no cpu.max (no cpu controller there, as on a hybrid host).
    static std::optional<CpuHold> open(const CgroupLocation& cgroup);

    // Writes held_cpu_max(left), after cpu.max.burst 0 (a burst would be added to the quota at each refill).
    // What was there before the first hold is kept to be put back; a value someone else wrote since the last
    // hold (husk update) is honoured from then on and put back instead.
    Result<void> hold(std::chrono::microseconds left);
    // Puts back cpu.max and then cpu.max.burst as they were before the hold (a burst above the held quota would
    // be refused). After the kill, so the killed processes can run their way out.
    void release();

private:
    CpuHold(UniqueFd dir, std::string where) : dir_(std::move(dir)), where_(std::move(where)) {}

    UniqueFd dir_;
    std::string where_;
    bool holding_ = false;
    std::string original_max_, original_burst_;  // as read, without the newline; burst empty: no such file
    std::string written_;                        // the cpu.max of the last hold, as the kernel reads it back
};

}  // namespace husk::cgroup
