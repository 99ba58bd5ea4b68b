// The caller's terminal relayed to a container's pty when husk keeps the pty master itself (process.terminal
// without --console-socket, in the foreground: `husk run`, and `husk exec -t` the same way). The caller's stdin
// goes to the master and the master's output to the caller's stdout, until the container is done and the pty
// hangs up, as with runc. The container's pty does the line discipline, so the caller's terminal is raw meanwhile.
#pragma once

#include <termios.h>

#include <chrono>
#include <cstddef>

#include "husk/error.hpp"
#include "husk/unique_fd.hpp"
#include "monitor/output_sink.hpp"
#include "monitor/wait.hpp"

namespace husk::frontend {

// The caller's fds the relay reads and writes (borrowed, never closed).
struct CallerFds {
    int in = 0;
    int out = 1;
};

// The caller's terminal in raw mode (cfmakeraw: every key, ^C and ^D included, goes to the container's pty) for
// as long as the guard lives, restored when it ends. A fatal signal that is not blocked while it lives (the
// forwarded ones are: monitor/wait.hpp) restores it too, then kills husk as it would have.
class RawMode {
public:
    RawMode() = default;
    // `fd` not a terminal (a pipe, a file): an inactive guard, nothing to set or restore.
    static Result<RawMode> enter(int fd);
    RawMode(RawMode&& other) noexcept;
    RawMode& operator=(RawMode&& other) noexcept;
    ~RawMode() { restore(); }
    // Back to the termios found by enter(), once (TCSANOW: a terminal whose output is stuck must not hold us).
    void restore() noexcept;
    bool active() const { return fd_ >= 0; }

private:
    int fd_ = -1;
    termios saved_{};
};

// The window size of `terminal` onto the pty `master` (tty_ioctl(4) TIOCGWINSZ/TIOCSWINSZ; the kernel then sends
// SIGWINCH to the pty's foreground process group). Nothing when `terminal` is not a terminal.
Result<void> copy_window_size(int terminal, int master);

// Moves bytes both ways without blocking on the master or on the caller. The caller's stdin is never made
// non-blocking (its open file description is the caller's shell's too): it is read once per readiness. An input
// the pty cannot take yet waits in a buffer and stdin is not read meanwhile. The same the other way: output the
// caller's stdout cannot take now (a reader that is slow, stuck, or a terminal stopped by ^S) waits in a bounded
// buffer and the master is not read meanwhile, so the container's writes block on its full pty, no byte is lost,
// and the monitor's loop goes on serving the limits and the signals (monitor/output_sink.hpp).
class TerminalRelay {
public:
    // Takes the master (made non-blocking) and watches it and `fds.in` in its own epoll set.
    static Result<TerminalRelay> open(UniqueFd master, CallerFds fds);

    // The relay's epoll set: one fd for the monitor's loop to watch.
    int fd() const { return epoll_.get(); }
    int master() const { return master_.get(); }
    // Moves what is ready now.
    void on_ready();
    // After the container ended: the master's output until the pty hangs up (EIO once every slave fd is closed);
    // a slave still open by a process that outlived init (no pid namespace) stops it after `quiet` without data.
    void drain(std::chrono::milliseconds quiet);
    // The master hung up: nothing more will come.
    bool hung_up() const { return !master_open_; }

private:
    TerminalRelay() = default;
    void dispatch(int timeout_ms);
    void read_output();
    bool flush_output();
    void pause_output();
    void resume_output();
    void read_input();
    void write_input();
    void end_input();
    void watch_master(bool want_output_room);
    void update_master();
    void watch_input(bool on);

    UniqueFd epoll_;
    UniqueFd master_;
    CallerFds fds_;
    bool master_open_ = true;
    bool input_open_ = true;
    bool input_pollable_ = true;  // epoll refuses regular files and /dev/null: read those when the pty has room
    bool input_watched_ = false;  // stdin is in the epoll set
    bool output_open_ = true;     // the caller's stdout took our writes (after EPIPE the output is discarded)
    monitor::OutputSink out_;              // the caller's stdout, written without blocking
    bool output_paused_ = false;  // out_ is full: watching it for EPOLLOUT, the master not read meanwhile
    bool master_parked_ = false;  // ... and the master, hung up meanwhile, out of the set (EPOLLHUP is level)
    bool master_watched_ = false;
    bool want_master_room_ = false;  // EPOLLOUT on the master: input waits for the pty to take it
    char output_[16384];          // read from the master, not yet taken by the caller's stdout
    std::size_t output_size_ = 0, output_offset_ = 0;
    char pending_[4096];          // input read but not yet taken by the pty
    std::size_t pending_size_ = 0, pending_offset_ = 0;
    char last_input_ = '\n';
};

// The relay as a watcher of the monitor's loop (monitor/wait.hpp), for the caller of wait_for_exit in the
// foreground. Call it before the process runs: the window size of the caller's terminal (stdin's, else
// stdout's) goes onto the pty at once. When the loop opens it, raw mode on `fds.in` if it is a terminal; while
// it runs, SIGWINCH resizes the pty (taken out of
// options.forward: the process learns the size from its terminal, not from a forwarded signal, as with runc);
// after the reap, the master drains, then the caller's terminal is restored. `master`: Spawned::console. Call it
// after options.forward is set (SIGWINCH is removed from it here).
void add_terminal_relay(UniqueFd master, monitor::WaitOptions& options, CallerFds fds = {});

}  // namespace husk::frontend
