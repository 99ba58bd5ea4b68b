// The verdict: how and why a container stopped (DESIGN.md §2 `husk.exit`), decided from facts husk observed:
// the wait status, what the monitor itself did (wall-time limit), and the signals `husk kill` recorded before
// sending them. Never from the number 137.
#pragma once

#include <chrono>
#include <cstdint>
#include <csignal>
#include <optional>
#include <string>
#include <string_view>

#include "monitor/wait.hpp"
#include "spec/annotations.hpp"
#include "state/record.hpp"

namespace husk::monitor {

// run.husk.timeout, run.husk.kill-grace, run.husk.stop-signal, run.husk.output-limit, run.husk.cpu-limit
// with their defaults (DESIGN.md §4).
struct StopPolicy {
    std::optional<std::chrono::milliseconds> timeout;
    std::chrono::milliseconds grace{5000};
    int stop_signal = SIGTERM;
    std::optional<std::uint64_t> output_limit;           // bytes of stdout+stderr together
    std::optional<std::chrono::microseconds> cpu_limit;  // CPU time of the whole cgroup
};

StopPolicy stop_policy(const spec::HuskAnnotations& annotations);

// "2s", "500ms", "1.5s", "2m": how durations read in details.
std::string format_duration(std::chrono::milliseconds duration);
// "SIGTERM", "SIGRTMIN+3", or "signal 99".
std::string signal_label(int signal);

// Signals that ask a process to stop: a workload that exits after husk sent one of these was `killed`, even
// with exit code 0 (it stopped politely). Others (USR1, WINCH...) are messages, not stop requests.
bool is_stop_request(int signal);

// The cause recorded at the deadline, before any signal: what husk is about to do.
state::StopCause timeout_cause(const StopPolicy& policy);
// The container wrote past the output cap: output cut at the cap, the container is being killed.
state::StopCause output_limit_cause(const StopPolicy& policy);
// The container's cgroup used its CPU budget (`used` as read from cpu.stat): it is being killed.
state::StopCause cpu_limit_cause(const StopPolicy& policy, std::chrono::microseconds used);
// "64KiB (65536 bytes)", "1000 bytes".
std::string format_bytes(std::uint64_t bytes);

// What the container's cgroup said after init ended, read before anything is torn down.
struct CgroupFacts {
    std::uint64_t oom_kills = 0;  // rise of memory.events oom_kill while the monitor watched
    std::string memory_max;       // memory.max as read then ("33554432", "max"); empty if unknown
};

// `husk run`'s exit status when one of husk's limits fired and the workload then exited on its own (no signal
// ended it): timeout(1)'s 124 for the wall-time limit, the two below it for the others. Distinct from 0-2,
// from 125-127 (the shell's and container CLIs' own failures), from 128 + N and from 255. Nothing for a
// reason that is not a limit.
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
