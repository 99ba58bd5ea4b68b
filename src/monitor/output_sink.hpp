// The stdout/stderr husk was given, as the monitor writes to it (the output pump, the terminal relay): a write
// never blocks the monitor's loop on a reader that is slow, stuck or stopped (^S), so the limits' timers and the
// forwarded signals are served whatever the reader does. What does not fit now waits in the writer's own bounded
// buffer while the writer stops reading the container: back-pressure, as with a plain pipe.
#pragma once

#include <sys/types.h>

#include <cstddef>

#include "husk/error.hpp"
#include "husk/unique_fd.hpp"

namespace husk::monitor {

// Our own open file description of the caller's `fd`, made non-blocking, where its kind allows one: a pipe or a
// terminal reopened through /proc/self/fd (O_NONBLOCK is a flag of the description; set on the inherited one it
// would also change the caller's other processes that share it). Anything else, or a reopen that fails (a pipe
// with no reader left, a terminal hung up), is a close-on-exec dup that OutputSink writes to as its kind allows.
Result<UniqueFd> open_output(int fd, const char* what);

// While the monitor waits for a stuck reader after the container has ended (the drains), the caller may ask husk
// to give up: SIGHUP, SIGINT, SIGQUIT or SIGTERM pending (blocked by `husk run`'s forwarding, so they wait for
// us; the detached monitor ignores them). How often the drains look.
bool asked_to_stop();
constexpr int stop_check_ms = 200;

class OutputSink {
public:
    enum class Kind {
        nonblocking,  // our own O_NONBLOCK description: write, EAGAIN when full
        socket,       // send(MSG_DONTWAIT): non-blocking per call without touching the shared description
        file,         // a regular file or block device: never waits for a reader, epoll refuses it (EPERM)
        guarded,      // a blocking pipe, terminal or device we could not reopen: write only what poll says fits
    };

    OutputSink() = default;
    explicit OutputSink(UniqueFd fd);

    // Writes what the output takes now, without blocking on its reader: bytes written (> 0), 0 when the
    // output is full (wait for EPOLLOUT on fd()), -1 when it failed (errno; EPIPE: the reader is gone).
    ssize_t write_some(const char* data, std::size_t size);

    int fd() const { return fd_.get(); }
    explicit operator bool() const { return static_cast<bool>(fd_); }
    Kind kind() const { return kind_; }
    // splice(SPLICE_F_NONBLOCK) into it never waits for its reader: a pipe (the flag covers both pipes) or a file.
    bool splice_safe() const { return splice_safe_; }
    void reset() { fd_.reset(); }

private:
    UniqueFd fd_;
    Kind kind_ = Kind::file;
    bool splice_safe_ = false;
};

}  // namespace husk::monitor
