// The verdict: how and why a container stopped (`husk.exit`; docs/ARCHITECTURE.md, "State"), decided from facts husk
// observed: the wait status, what the monitor itself did (its limits), and the signals `husk kill` recorded before
// sending them. Never from the number 137.
#pragma once

#include <chrono>
#include <cstdint>
#include <csignal>
#include <optional>
#include <string>
#include <string_view>

#include "monitor/policy.hpp"
#include "monitor/watcher.hpp"
#include "state/record.hpp"

namespace husk::monitor {

// "2s", "500ms", "1.5s", "2m": how durations read in details.
std::string format_duration(std::chrono::milliseconds duration);
// "SIGTERM", "SIGRTMIN+3", or "signal 99".
std::string signal_label(int signal);

// Signals that ask a process to stop: a workload that exits after husk sent one of these was `killed`, even
// with exit code 0 (it stopped politely). Others (USR1, WINCH...) are messages, not stop requests.
bool is_stop_request(int signal);

// "64KiB (65536 bytes)", "1000 bytes".
std::string format_bytes(std::uint64_t bytes);

// What the container's cgroup said after init ended, read before anything is torn down.
struct CgroupFacts {
    std::uint64_t oom_kills = 0;  // rise of memory.events oom_kill while the monitor watched
    std::string memory_max;       // memory.max as read then ("33554432", "max"); empty if unknown
    // memory.events.local "max": how often the cgroup's own memory.max was reached (-1 unknown). 0 with an OOM
    // kill: the limit that was reached is an ancestor's (a tenant's cgroup) or the machine's.
    long long memory_max_hits = -1;
};

// `husk run`'s exit status when one of husk's limits fired and the workload then exited on its own (no signal
// ended it): the limit's status in the stop-reasons table. Nothing for a reason that is not a limit.
std::optional<int> limit_exit_status(std::string_view reason);
// The limit fired (reason timeout, output-limit or cpu-limit), yet init exited by itself with a code the
// kernel reported: it was faster than husk's kill, or it obeyed the stop signal.
bool exited_after_limit(const state::ExitRecord& exit);
// What `husk run` in the foreground exits with for this verdict: the code (128 + N after a signal), the
// limit's status when the workload exited on its own after a limit fired (never 0), 255 when unknown.
int run_exit_status(const state::ExitRecord& exit);

// The final `husk.exit`: exit facts + reason + detail. A cause recorded earlier (timeout) is kept; `oom` needs
// both facts: init died of SIGKILL and the kernel's OOM killer killed in the container's cgroup.
state::ExitRecord decide_exit(const ExitStatus& status, const state::Record& record,
                              const StopPolicy& policy, const CgroupFacts& facts = {});

}  // namespace husk::monitor
