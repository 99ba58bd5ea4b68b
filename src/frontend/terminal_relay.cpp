#include "frontend/terminal_relay.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <optional>

#include "monitor/stdio_write.hpp"  // IgnoredSigpipe

namespace husk::frontend {

using monitor::asked_to_stop;
using monitor::Enforced;
using monitor::ExitStatus;
using monitor::IgnoredSigpipe;
using monitor::open_output;
using monitor::OutputSink;
using monitor::stop_check_ms;
using monitor::WaitOptions;
using monitor::Watcher;
namespace {

Result<void> control(int epoll, int op, int fd, std::uint32_t events) {
    epoll_event event{};
    event.events = events;
    event.data.fd = fd;
    if (::epoll_ctl(epoll, op, fd, &event) != 0) return fail_sys(errno, "epoll_ctl", "terminal relay");
    return {};
}

}  // namespace

Result<TerminalRelay> TerminalRelay::open(UniqueFd master, CallerFds fds) {
    TerminalRelay relay;
    relay.epoll_.reset(::epoll_create1(EPOLL_CLOEXEC));
    if (!relay.epoll_) return fail_sys(errno, "epoll_create1", "terminal relay");
    // Our own open file description (init closed its copy): non-blocking is ours alone to set.
    if (::fcntl(master.get(), F_SETFL, O_NONBLOCK) != 0) return fail_sys(errno, "fcntl O_NONBLOCK", "pty master");
    relay.master_ = std::move(master);
    relay.fds_ = fds;
    relay.out_ = OutputSink(TRY(open_output(fds.out, "the caller's stdout")));
    TRY(control(relay.epoll_.get(), EPOLL_CTL_ADD, relay.master_.get(), EPOLLIN));
    relay.master_watched_ = true;
    if (auto added = control(relay.epoll_.get(), EPOLL_CTL_ADD, fds.in, EPOLLIN); !added) {
        // EPERM: a regular file or /dev/null, always readable; read whenever the pty has room for more.
        if (added.error().err != EPERM) return std::unexpected(added.error());
        relay.input_pollable_ = false;
        relay.read_input();
    } else {
        relay.input_watched_ = true;
    }
    return relay;
}

void TerminalRelay::on_ready() { dispatch(0); }

void TerminalRelay::drain(std::chrono::milliseconds quiet) {
    // The container is gone: input nobody will read is dropped.
    input_open_ = false;
    pending_size_ = pending_offset_ = 0;
    while (master_open_ || output_size_ > 0) {
        // Output waits for the reader however slow it is (a reader that went away ends it: EPIPE), unless the
        // caller asks husk to stop; a master with nothing to say, still held open by a process that outlived
        // init, stops it after `quiet`.
        pollfd p = output_paused_ ? pollfd{out_.fd(), POLLOUT, 0} : pollfd{master_.get(), POLLIN, 0};
        int ready = ::poll(&p, 1, output_paused_ ? stop_check_ms : static_cast<int>(quiet.count()));
        if (ready < 0 && errno == EINTR) continue;
        if (ready == 0 && output_paused_ && !asked_to_stop()) continue;
        if (ready <= 0) break;
        if (output_paused_) resume_output();
        else read_output();
    }
}

void TerminalRelay::dispatch(int timeout_ms) {
    epoll_event events[4];
    int n = ::epoll_wait(epoll_.get(), events, 4, timeout_ms);
    for (int i = 0; i < n; ++i) {
        int fd = events[i].data.fd;
        if (output_paused_ && fd == out_.fd()) {
            resume_output();
        } else if (fd == master_.get() && master_open_ && output_paused_) {
            // Only EPOLLOUT was asked (input waits), but a hangup comes anyway and would wake us until the
            // output has room: out of the set until then; the master's last output is read after.
            if (events[i].events & (EPOLLHUP | EPOLLERR)) {
                master_parked_ = true;
                update_master();
            }
            if (!(events[i].events & EPOLLOUT)) continue;
            if (pending_size_ > 0) write_input();
            else if (input_open_ && !input_pollable_) read_input();
        } else if (fd == master_.get() && master_open_) {
            if (events[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR)) read_output();
            if (!master_open_ || !(events[i].events & EPOLLOUT)) continue;
            if (pending_size_ > 0) write_input();
            else if (input_open_ && !input_pollable_) read_input();
        } else if (fd == fds_.in && input_open_ && pending_size_ == 0) {
            read_input();
        }
    }
}

// Master → the caller's stdout, until the master has nothing now (EAGAIN), hangs up (EIO: every slave fd is
// closed; pty(7)), or the caller's stdout is full (then paused, the rest stays in the pty).
void TerminalRelay::read_output() {
    for (;;) {
        if (!flush_output()) return;
        if (!master_open_) return;
        ssize_t n = ::read(master_.get(), output_, sizeof output_);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && errno == EAGAIN) return;
        if (n <= 0) {
            master_open_ = false;
            if (master_watched_) ::epoll_ctl(epoll_.get(), EPOLL_CTL_DEL, master_.get(), nullptr);
            master_watched_ = false;
            return;
        }
        output_size_ = static_cast<std::size_t>(n);
        output_offset_ = 0;
    }
}

// What the caller's stdout takes of the buffer now. False: it is full (the relay pauses until it has room).
// A stdout that went away (EPIPE): the rest is dropped, so the container never blocks on a full pty for a
// reader that is gone.
bool TerminalRelay::flush_output() {
    while (output_offset_ < output_size_ && output_open_) {
        ssize_t n = out_.write_some(output_ + output_offset_, output_size_ - output_offset_);
        if (n == 0) {
            pause_output();
            return false;
        }
        if (n < 0) output_open_ = false;
        else output_offset_ += static_cast<std::size_t>(n);
    }
    output_size_ = output_offset_ = 0;
    return true;
}

void TerminalRelay::pause_output() {
    if (output_paused_) return;
    if (!control(epoll_.get(), EPOLL_CTL_ADD, out_.fd(), EPOLLOUT)) {
        // An output epoll cannot watch: only a device whose poll we could not ask; try again shortly.
        pollfd p{out_.fd(), POLLOUT, 0};
        ::poll(&p, 1, 100);
        return;
    }
    output_paused_ = true;
    update_master();
}

void TerminalRelay::resume_output() {
    ::epoll_ctl(epoll_.get(), EPOLL_CTL_DEL, out_.fd(), nullptr);
    output_paused_ = false;
    master_parked_ = false;
    update_master();
    read_output();
}

// One read of the caller's stdin per readiness (it stays blocking), handed to the pty.
void TerminalRelay::read_input() {
    ssize_t n = ::read(fds_.in, pending_, sizeof pending_);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) return;
    if (n <= 0) {
        end_input();
        return;
    }
    pending_size_ = static_cast<std::size_t>(n);
    pending_offset_ = 0;
    last_input_ = pending_[n - 1];
    write_input();
}

// What the pty takes now; the rest waits for EPOLLOUT on the master while stdin is not read.
void TerminalRelay::write_input() {
    while (pending_offset_ < pending_size_) {
        ssize_t n = ::write(master_.get(), pending_ + pending_offset_, pending_size_ - pending_offset_);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && errno == EAGAIN) {
            watch_master(true);
            watch_input(false);
            return;
        }
        if (n <= 0) {  // the pty is gone: nothing will read input any more
            input_open_ = false;
            pending_size_ = pending_offset_ = 0;
            watch_input(false);
            return;
        }
        pending_offset_ += static_cast<std::size_t>(n);
    }
    pending_size_ = pending_offset_ = 0;
    watch_master(false);
    if (!input_open_) return;
    watch_input(true);
    // A file is always readable: the next chunk comes when the pty has taken this one (EPOLLOUT).
    if (!input_pollable_) watch_master(true);
}

// End of the caller's input. From a pipe or a file, the container's terminal is told as a keyboard would tell
// it: its EOF character (^D) in canonical mode, twice after a line without its newline (the first ends the
// line). From a terminal (a hangup) nothing: the caller's SIGHUP is forwarded.
void TerminalRelay::end_input() {
    input_open_ = false;
    watch_input(false);
    termios mode{};
    if (::isatty(fds_.in) || ::tcgetattr(master_.get(), &mode) != 0 || !(mode.c_lflag & ICANON)) return;
    pending_[0] = pending_[1] = static_cast<char>(mode.c_cc[VEOF]);
    pending_size_ = last_input_ == '\n' ? 1 : 2;
    pending_offset_ = 0;
    write_input();
}

void TerminalRelay::watch_master(bool want_output_room) {
    want_master_room_ = want_output_room;
    update_master();
}

// The master in the set for what we wait for: its output unless the caller's stdout is full, room for input.
void TerminalRelay::update_master() {
    if (!master_open_) return;
    std::uint32_t events = (output_paused_ ? 0u : EPOLLIN) | (want_master_room_ ? EPOLLOUT : 0u);
    bool watch = events != 0 && !master_parked_;
    if (!watch) {
        if (master_watched_) ::epoll_ctl(epoll_.get(), EPOLL_CTL_DEL, master_.get(), nullptr);
        master_watched_ = false;
        return;
    }
    if (control(epoll_.get(), master_watched_ ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, master_.get(), events))
        master_watched_ = true;
}

// Out of the set while paused, not only without EPOLLIN: epoll reports a hung-up pipe with no events asked.
void TerminalRelay::watch_input(bool on) {
    if (!input_pollable_ || on == input_watched_) return;
    if (control(epoll_.get(), on ? EPOLL_CTL_ADD : EPOLL_CTL_DEL, fds_.in, EPOLLIN)) input_watched_ = on;
}

namespace {

// The caller's terminal whose size the pty takes: stdin's, else stdout's (`cmd | husk run` in a terminal).
int size_source(CallerFds fds) { return ::isatty(fds.in) ? fds.in : fds.out; }

// The relay in the monitor's loop: its own epoll set (the master, stdin, a signalfd for SIGWINCH), nested.
class TerminalWatcher : public Watcher {
public:
    TerminalWatcher(UniqueFd master, CallerFds fds) : master_(std::move(master)), fds_(fds) {}
    ~TerminalWatcher() override {
        raw_.restore();
        if (blocked_winch_) ::sigprocmask(SIG_UNBLOCK, &winch_, nullptr);
    }

    Result<int> open() override {
        sigpipe_.emplace();
        relay_.emplace(TRY(TerminalRelay::open(std::move(master_), fds_)));
        raw_ = TRY(RawMode::enter(fds_.in));
        sigemptyset(&winch_);
        sigaddset(&winch_, SIGWINCH);
        sigset_t before;
        if (::sigprocmask(SIG_BLOCK, &winch_, &before) != 0) return fail_sys(errno, "sigprocmask", "SIGWINCH");
        blocked_winch_ = !sigismember(&before, SIGWINCH);
        winch_fd_.reset(::signalfd(-1, &winch_, SFD_CLOEXEC | SFD_NONBLOCK));
        if (!winch_fd_) return fail_sys(errno, "signalfd", "SIGWINCH");
        TRY(control(relay_->fd(), EPOLL_CTL_ADD, winch_fd_.get(), EPOLLIN));
        return relay_->fd();
    }
    void on_ready(bool, Enforced&) override {
        signalfd_siginfo info;
        bool resized = false;
        while (::read(winch_fd_.get(), &info, sizeof info) == sizeof info) resized = true;
        if (resized) (void)copy_window_size(size_source(fds_), relay_->master());
        relay_->on_ready();
    }
    void finish(ExitStatus&) override {
        // With a pid namespace every holder of the slave died with init and EIO comes at once.
        relay_->drain(std::chrono::seconds(1));
        raw_.restore();
        sigpipe_.reset();
    }

private:
    UniqueFd master_;
    CallerFds fds_;
    std::optional<TerminalRelay> relay_;
    RawMode raw_;
    std::optional<IgnoredSigpipe> sigpipe_;
    sigset_t winch_{};
    bool blocked_winch_ = false;
    UniqueFd winch_fd_;
};

}  // namespace

void add_terminal_relay(UniqueFd master, WaitOptions& options, CallerFds fds) {
    // Now, before the process runs: its first `stty size` must see it. Best effort, as with runc: a size is cosmetic.
    (void)copy_window_size(size_source(fds), master.get());
    if (options.forward) sigdelset(&*options.forward, SIGWINCH);
    options.watchers.push_back(std::make_unique<TerminalWatcher>(std::move(master), fds));
}

}  // namespace husk::frontend
