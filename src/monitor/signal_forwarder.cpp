#include "monitor/signal_forwarder.hpp"

#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>

#include "base/sys.hpp"
#include "husk/unique_fd.hpp"
#include "monitor/verdict.hpp"

namespace husk::monitor {
namespace {

// Bit (n - 1): signal n arrived while deferred. Only async-signal-safe lock-free operations touch it.
std::atomic<std::uint64_t> deferred{0};

void note_deferred(int signal) {
    if (signal >= 1 && signal <= 64) deferred.fetch_or(std::uint64_t{1} << (signal - 1));
}

// The signalfd and the grace's timerfd in an epoll set of their own, nested in the monitor's loop (one fd per
// watcher), as the output pump nests its pipes.
class SignalForwarder : public Watcher {
public:
    SignalForwarder(sigset_t set, int pidfd, std::optional<Cancel> cancel)
        : set_(set), pidfd_(pidfd), cancel_(std::move(cancel)) {}

    Result<int> open() override {
        epoll_.reset(::epoll_create1(EPOLL_CLOEXEC));
        if (!epoll_) return fail_sys(errno, "epoll_create1");
        if (::sigprocmask(SIG_BLOCK, &set_, nullptr) != 0) return fail_sys(errno, "sigprocmask");
        signals_.reset(::signalfd(-1, &set_, SFD_CLOEXEC | SFD_NONBLOCK));
        if (!signals_) return fail_sys(errno, "signalfd");
        // Blocked now: raised again, they wait in the signalfd.
        std::uint64_t noted = deferred.exchange(0);
        for (int signal = 1; signal <= 64; ++signal)
            if ((noted >> (signal - 1)) & 1u) ::raise(signal);
        TRY(watch(signals_.get()));
        if (cancel_) {
            grace_.reset(::timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK));
            if (!grace_) return fail_sys(errno, "timerfd_create");
            TRY(watch(grace_.get()));
        }
        return epoll_.get();
    }

    void on_ready(bool, Enforced& enforced) override {
        signalfd_siginfo info{};
        while (::read(signals_.get(), &info, sizeof info) == sizeof info) forward(static_cast<int>(info.ssi_signo), enforced);
        std::uint64_t ticks = 0;
        if (grace_ && ::read(grace_.get(), &ticks, sizeof ticks) == sizeof ticks) kill(enforced);
    }

private:
    Result<void> watch(int fd) {
        epoll_event event{};
        event.events = EPOLLIN;
        if (::epoll_ctl(epoll_.get(), EPOLL_CTL_ADD, fd, &event) != 0) return fail_sys(errno, "epoll_ctl");
        return {};
    }

    void forward(int signal, Enforced& enforced) {
        if (sys::pidfd_send_signal(pidfd_, signal) == 0 && signal >= 1 && signal <= 64)
            enforced.forwarded |= std::uint64_t{1} << (signal - 1);
        if (!cancel_ || enforced.cancel_signal != 0 || !is_stop_request(signal)) return;
        // The first stop request starts the grace; later ones are forwarded and change nothing.
        enforced.cancel_signal = signal;
        itimerspec spec{};
        spec.it_value.tv_sec = static_cast<time_t>(cancel_->grace.count() / 1000);
        spec.it_value.tv_nsec = static_cast<long>(cancel_->grace.count() % 1000) * 1000000L;
        // Grace 0 (or a timer that cannot be armed): kill now rather than never.
        if (cancel_->grace.count() == 0 || ::timerfd_settime(grace_.get(), 0, &spec, nullptr) != 0) kill(enforced);
    }

    void kill(Enforced& enforced) {
        if (enforced.cancel_killed) return;
        cancel_->kill();
        enforced.cancel_killed = true;
    }

    sigset_t set_;
    int pidfd_;
    std::optional<Cancel> cancel_;
    UniqueFd epoll_, signals_, grace_;
};

}  // namespace

void defer_signals(const sigset_t& set) {
    struct sigaction action{};
    action.sa_handler = note_deferred;
    action.sa_flags = SA_RESTART;
    sigfillset(&action.sa_mask);
    for (int signal = 1; signal < 64; ++signal) {
        if (sigismember(&set, signal) != 1) continue;
        // A signal the caller left ignored (nohup's SIGHUP) stays ignored.
        struct sigaction current{};
        if (::sigaction(signal, nullptr, &current) == 0 && current.sa_handler == SIG_IGN) continue;
        ::sigaction(signal, &action, nullptr);
    }
}

std::unique_ptr<Watcher> forward_signals(const sigset_t& set, int pidfd, std::optional<Cancel> cancel) {
    return std::make_unique<SignalForwarder>(set, pidfd, std::move(cancel));
}

}  // namespace husk::monitor
