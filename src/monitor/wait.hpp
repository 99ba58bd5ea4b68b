// Waiting for the container init to end, whether we are its parent or not (DESIGN.md section 3).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <csignal>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "husk/error.hpp"
#include "monitor/cpu_budget.hpp"
#include "monitor/output_pump.hpp"
#include "monitor/stop_reasons.hpp"

namespace husk::monitor {

// What the monitor itself did to the container while waiting: the facts behind a limit's reason and `killed`.
struct Enforced {
    std::uint32_t limits = 0;       // bit per Reason: the limits that fired (each recorded its cause first)
    bool stop_signal_sent = false;  // the wall-time limit sent the stop signal to init
    bool killed = false;            // ... and killed the whole container (grace over, or grace 0)
    std::uint64_t forwarded = 0;    // bit (n - 1): signal n was forwarded to init (`husk run` in the foreground)

    void fire(Reason limit) { limits |= std::uint32_t{1} << static_cast<unsigned>(limit); }
    bool fired(Reason limit) const { return (limits >> static_cast<unsigned>(limit)) & 1u; }
};

struct ExitStatus {
    bool known = false;  // false when neither waitid nor PIDFD_INFO_EXIT could tell (kernel < 6.15, not parent)
    int code = -1;       // exit code, or 128 + signal (as a shell reports it)
    int signal = 0;      // the terminating signal, 0 for a normal exit
    std::string exec_error;  // init failed after `start` (exec or startContainer hook), from the sync socket
    Enforced enforced;
    // Bytes the output pump delivered (only when there is one: run.husk.output-limit).
    std::optional<std::uint64_t> stdout_bytes, stderr_bytes;
};

// The wall-time limit (DESIGN.md §4, run.husk.timeout). It counts from the moment init execs the workload:
// the sync socket is close-on-exec, so its EOF without an exec_failed report is that moment (`start` alone
// is not: startContainer hooks run between the two, and a failed exec never starts the clock).
struct WallTime {
    std::chrono::milliseconds limit{0};
    std::chrono::milliseconds grace{5000};  // stop signal → kill; 0 = kill at once, no stop signal
    int stop_signal = SIGTERM;
    // Called at the deadline before any signal is sent: records the cause durably (state survives us).
    std::function<void()> record_cause;
    // Kills every process of the container: cgroup.kill, or SIGKILL to init when there is no cgroup.
    std::function<void()> kill_all;
};

enum class Role { parent, watcher };  // parent: waitid reaps; watcher: init belongs to a subreaper

struct WaitOptions {
    Role role = Role::parent;
    // The watcher's fallback while init is an unreaped zombie needs to know it is still our init.
    pid_t pid = 0;
    std::uint64_t start_time = 0;
    int sync = -1;  // init's sync socket: reports a failed execve
    // Signals to forward to init while waiting (`husk run` in the foreground); empty = none.
    std::optional<sigset_t> forward;
    std::optional<WallTime> wall_time;
    std::optional<CpuBudget> cpu_budget;
    // The output pump, when output is capped: pumped while waiting, drained to EOF after init has ended
    // (reap → drain → the caller reads the counters and writes the verdict; DESIGN.md §3).
    std::optional<OutputPump> pump;
};

// Blocks (epoll on pidfd, sync socket, signalfd, timerfd) until init has exited.
// The wall-time and CPU clocks start when init execs (the sync socket's EOF), or at once without a socket.
Result<ExitStatus> wait_for_exit(int pidfd, WaitOptions& options);

ExitStatus decode_wait_status(int status);

}  // namespace husk::monitor
