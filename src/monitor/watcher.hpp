// What the monitor's loop watches besides init, and what it learns: one Watcher per limit (and the signal
// forwarding of `husk run`), each an fd in the same epoll set (monitor/wait.hpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "husk/error.hpp"
#include "monitor/stop_reasons.hpp"

namespace husk::monitor {

// What the monitor itself did to the container while waiting: the facts behind a limit's reason and `killed`.
struct Enforced {
    std::uint32_t limits = 0;       // bit per Reason: the limits that fired (each recorded its cause first)
    bool stop_signal_sent = false;  // the wall-time limit sent the stop signal to init
    bool killed = false;            // ... and killed the whole container (grace over, or grace 0)
    std::uint64_t forwarded = 0;    // bit (n - 1): signal n was forwarded to init (`husk run` in the foreground)
    int cancel_signal = 0;          // the first stop request forwarded: the cancel that started the kill grace
    bool cancel_killed = false;     // ... and the container had not ended within the grace: killed
    int caller_gone = 0;            // pid of the --die-with-parent caller whose death made husk kill the container

    void fire(Reason limit) { limits |= std::uint32_t{1} << static_cast<unsigned>(limit); }
    bool fired(Reason limit) const { return (limits >> static_cast<unsigned>(limit)) & 1u; }
};

struct ExitStatus {
    bool known = false;  // false when neither waitid nor PIDFD_INFO_EXIT could tell (kernel < 6.15, not parent)
    int code = -1;       // exit code, or 128 + signal (as a shell reports it)
    int signal = 0;      // the terminating signal, 0 for a normal exit
    // run.husk.init: `signal` is the one that ended the program, as husk-init reported it; husk-init itself
    // exited with code 128 + signal (monitor/wait.cpp, apply_init_report).
    bool signal_from_init = false;
    std::string exec_error;  // init failed after `start` (exec or startContainer hook), from the sync socket
    Enforced enforced;
    // Bytes the output pump delivered (only when there is one: run.husk.output-limit).
    std::optional<std::uint64_t> stdout_bytes, stderr_bytes;
};

class Watcher {
public:
    virtual ~Watcher() = default;
    // Called once, before the loop: opens the fd the loop watches (EPOLLIN).
    virtual Result<int> open() = 0;
    // Init has exec'd the workload (the sync socket's EOF), or at once when nothing tells: clocks start here.
    virtual Result<void> start() { return {}; }
    // The fd is ready. `init_exited`: init's end came in the same wakeup; a deadline that lost that race to the
    // workload's own exit is not enforced.
    virtual void on_ready(bool init_exited, Enforced& enforced) = 0;
    // Init has ended, its exit status not read yet: a limit reached by then counts, and a cause recorded now is in
    // the record before record_exit reads it.
    virtual void on_init_exit(Enforced& enforced) { (void)enforced; }
    // After init was reaped, before the verdict: last work (the pump drains to EOF), and what it counted.
    virtual void finish(ExitStatus& status) { (void)status; }
};

}  // namespace husk::monitor
