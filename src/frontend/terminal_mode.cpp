// The caller's terminal settings around a relay: raw mode and the window size (frontend/terminal_relay.hpp).
#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <utility>

#include "frontend/terminal_relay.hpp"

namespace husk::frontend {
namespace {

// What a fatal signal's handler restores: the one terminal in raw mode (husk relays one terminal at a time).
// Written before the handlers are installed and after they are removed, so a handler never sees it half-set.
int raw_fd = -1;
termios raw_saved{};

// Signals whose default action ends husk and that are not faults of husk's own code (a crash there is left to
// the crash). Those the monitor's loop forwards are blocked while it runs and never reach the handler.
constexpr int fatal_signals[] = {SIGHUP,  SIGINT,  SIGQUIT,   SIGTERM, SIGUSR1, SIGUSR2, SIGALRM,
                                 SIGVTALRM, SIGPROF, SIGXCPU, SIGXFSZ, SIGIO,   SIGPWR,  SIGABRT};
constexpr std::size_t fatal_count = sizeof fatal_signals / sizeof fatal_signals[0];
struct sigaction previous_actions[fatal_count];

// Async-signal-safe (tcsetattr is an ioctl, sigaction and raise are listed in signal-safety(7)): restore the
// terminal, put back what was there before and let the signal do what it would have done.
void restore_and_resend(int signal) {
    const int saved_errno = errno;  // the interrupted code may be about to read it
    if (raw_fd >= 0) ::tcsetattr(raw_fd, TCSANOW, &raw_saved);
    for (std::size_t i = 0; i < fatal_count; ++i)
        if (fatal_signals[i] == signal) ::sigaction(signal, &previous_actions[i], nullptr);
    ::raise(signal);
    errno = saved_errno;
}

// A signal the caller left ignored (nohup's SIGHUP) does not end husk: it keeps being ignored, instead of
// putting the terminal back to cooked mode under a relay that goes on.
void install_handlers() {
    struct sigaction action{};
    action.sa_handler = restore_and_resend;
    sigfillset(&action.sa_mask);
    for (std::size_t i = 0; i < fatal_count; ++i) {
        ::sigaction(fatal_signals[i], nullptr, &previous_actions[i]);
        if (previous_actions[i].sa_handler != SIG_IGN) ::sigaction(fatal_signals[i], &action, nullptr);
    }
}

void remove_handlers() {
    for (std::size_t i = 0; i < fatal_count; ++i) ::sigaction(fatal_signals[i], &previous_actions[i], nullptr);
}

}  // namespace

Result<RawMode> RawMode::enter(int fd) {
    RawMode guard;
    if (!::isatty(fd)) return guard;
    if (::tcgetattr(fd, &guard.saved_) != 0) return fail_sys(errno, "tcgetattr", "the caller's terminal");
    termios raw = guard.saved_;
    ::cfmakeraw(&raw);
    raw_fd = fd;
    raw_saved = guard.saved_;
    install_handlers();
    guard.fd_ = fd;  // from here on the guard restores, also when the next call fails half-way
    if (::tcsetattr(fd, TCSANOW, &raw) != 0) return fail_sys(errno, "tcsetattr raw", "the caller's terminal");
    return guard;
}

RawMode::RawMode(RawMode&& other) noexcept : fd_(std::exchange(other.fd_, -1)), saved_(other.saved_) {}

RawMode& RawMode::operator=(RawMode&& other) noexcept {
    if (this != &other) {
        restore();
        fd_ = std::exchange(other.fd_, -1);
        saved_ = other.saved_;
    }
    return *this;
}

void RawMode::restore() noexcept {
    if (fd_ < 0) return;
    ::tcsetattr(fd_, TCSANOW, &saved_);
    remove_handlers();
    raw_fd = -1;
    fd_ = -1;
}

Result<void> copy_window_size(int terminal, int master) {
    if (!::isatty(terminal)) return {};
    winsize size{};
    if (::ioctl(terminal, TIOCGWINSZ, &size) != 0) return fail_sys(errno, "ioctl TIOCGWINSZ", "the caller's terminal");
    // 0x0: a terminal nobody sized (a fresh pty). Keep process.consoleSize, or the kernel's default, instead.
    if (size.ws_row == 0 && size.ws_col == 0) return {};
    if (::ioctl(master, TIOCSWINSZ, &size) != 0) return fail_sys(errno, "ioctl TIOCSWINSZ", "the container's terminal");
    return {};
}

}  // namespace husk::frontend
