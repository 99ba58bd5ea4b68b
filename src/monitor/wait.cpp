#include "monitor/wait.hpp"

#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>

#include "base/proc_stat.hpp"
#include "base/sys.hpp"
#include "husk/unique_fd.hpp"
#include "process/sync.hpp"

namespace husk::monitor {
namespace {

// PIDFD_GET_INFO (Linux 6.13) with PIDFD_INFO_EXIT (6.15): a pidfd reports the exit status of a process we did
// not wait for. Defined here because Debian 12's kernel headers predate it.
struct PidfdInfo {
    std::uint64_t mask;
    std::uint64_t cgroupid;
    std::uint32_t pid, tgid, ppid, ruid, rgid, euid, egid, suid, sgid, fsuid, fsgid;
    std::int32_t exit_code;
};
static_assert(sizeof(PidfdInfo) == 64, "PIDFD_INFO_SIZE_VER0");
constexpr std::uint64_t pidfd_info_exit = 1u << 3;
constexpr unsigned long pidfd_get_info = _IOWR(0xFF, 11, PidfdInfo);

// The kernel fills PIDFD_INFO_EXIT when the process is reaped (release_task), not when it exits. Until the
// subreaper reaps it, init is a zombie and /proc/PID/stat field 52 holds the same wait status. So: ask the
// pidfd; failing that read the zombie's status (same pid and start time, so it is our init); failing that it
// was just reaped, so ask the pidfd again. A subreaper that never reaps leaves the zombie readable.
ExitStatus read_watched_exit(int pidfd, const WaitOptions& options) {
    for (int attempt = 0; attempt < 500; ++attempt) {
        PidfdInfo info{};
        info.mask = pidfd_info_exit;
        if (::ioctl(pidfd, pidfd_get_info, &info) == 0 && (info.mask & pidfd_info_exit) != 0)
            return decode_wait_status(info.exit_code);
        if (options.pid > 0) {
            auto stat = read_proc_stat(options.pid);
            if (stat && stat->start_time == options.start_time && stat->state == 'Z')
                return decode_wait_status(stat->exit_code);
        }
        ::usleep(10000);
    }
    return ExitStatus{};
}

ExitStatus read_exit(int pidfd, const WaitOptions& options) {
    if (options.role == Role::watcher) return read_watched_exit(pidfd, options);
    {
        siginfo_t info{};
        while (::waitid(P_PIDFD, static_cast<id_t>(pidfd), &info, WEXITED) != 0) {
            if (errno != EINTR) return ExitStatus{};
        }
        ExitStatus status;
        status.known = true;
        if (info.si_code == CLD_EXITED) {
            status.code = info.si_status;
        } else {
            status.signal = info.si_status;
            status.code = 128 + info.si_status;
        }
        return status;
    }
}

// The wall-time limit as a two-step timerfd (CLOCK_MONOTONIC: wall-clock jumps don't move the deadline):
// at the deadline, record the cause, then the stop signal and the grace; at the end of the grace, kill.
class WallTimer {
public:
    WallTimer(const WallTime* config, int pidfd) : config_(config), pidfd_(pidfd) {}
    int fd() const { return fd_.get(); }

    Result<void> open() {
        fd_.reset(::timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK));
        if (!fd_) return fail_sys(errno, "timerfd_create");
        return {};
    }
    Result<void> start() {
        if (phase_ != Phase::idle) return {};
        phase_ = Phase::counting;
        return arm(config_->limit);
    }
    void expired(Enforced& enforced) {
        std::uint64_t ticks = 0;
        if (::read(fd_.get(), &ticks, sizeof ticks) != sizeof ticks) return;  // spurious: not expired yet
        if (phase_ == Phase::counting) {
            enforced.fire(Reason::timeout);
            if (config_->record_cause) config_->record_cause();
            if (config_->grace.count() > 0) {
                if (sys::pidfd_send_signal(pidfd_, config_->stop_signal) == 0) enforced.stop_signal_sent = true;
                phase_ = Phase::grace;
                if (arm(config_->grace)) return;
            }
            // Grace 0, or a timer that cannot be armed again: kill now rather than never.
        } else if (phase_ != Phase::grace) {
            return;
        }
        phase_ = Phase::done;
        if (config_->kill_all) config_->kill_all();
        enforced.killed = true;
    }

private:
    enum class Phase { idle, counting, grace, done };

    Result<void> arm(std::chrono::milliseconds after) {
        itimerspec spec{};
        spec.it_value.tv_sec = static_cast<time_t>(after.count() / 1000);
        spec.it_value.tv_nsec = static_cast<long>(after.count() % 1000) * 1000000L;
        if (::timerfd_settime(fd_.get(), 0, &spec, nullptr) != 0) return fail_sys(errno, "timerfd_settime");
        return {};
    }

    const WallTime* config_;
    int pidfd_;
    UniqueFd fd_;
    Phase phase_ = Phase::idle;
};

// The pump writes into pipes whose reader may go away: an EPIPE to handle, not a reason for the monitor to
// die. Restored afterwards (`husk run` runs poststop hooks later, which must not inherit SIG_IGN).
class IgnoredSigpipe {
public:
    IgnoredSigpipe() {
        struct sigaction ignore{};
        ignore.sa_handler = SIG_IGN;
        ::sigaction(SIGPIPE, &ignore, &previous_);
    }
    ~IgnoredSigpipe() { ::sigaction(SIGPIPE, &previous_, nullptr); }
    IgnoredSigpipe(const IgnoredSigpipe&) = delete;
    IgnoredSigpipe& operator=(const IgnoredSigpipe&) = delete;

private:
    struct sigaction previous_{};
};

}  // namespace

ExitStatus decode_wait_status(int status) {
    ExitStatus out;
    out.known = true;
    if (WIFEXITED(status)) {
        out.code = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
        out.signal = WTERMSIG(status);
        out.code = 128 + out.signal;
    }
    return out;
}

Result<ExitStatus> wait_for_exit(int pidfd, WaitOptions& options) {
    UniqueFd epoll(::epoll_create1(EPOLL_CLOEXEC));
    if (!epoll) return fail_sys(errno, "epoll_create1");
    auto watch = [&](int fd) -> Result<void> {
        epoll_event event{};
        event.events = EPOLLIN;
        event.data.fd = fd;
        if (::epoll_ctl(epoll.get(), EPOLL_CTL_ADD, fd, &event) != 0) return fail_sys(errno, "epoll_ctl");
        return {};
    };
    TRY(watch(pidfd));
    int sync = options.sync;
    if (sync >= 0) TRY(watch(sync));
    UniqueFd signals;
    if (options.forward) {
        sigset_t set = *options.forward;
        if (::sigprocmask(SIG_BLOCK, &set, nullptr) != 0) return fail_sys(errno, "sigprocmask");
        signals.reset(::signalfd(-1, &set, SFD_CLOEXEC));
        if (!signals) return fail_sys(errno, "signalfd");
        TRY(watch(signals.get()));
    }
    std::optional<IgnoredSigpipe> sigpipe;
    if (options.pump) {
        TRY(watch(options.pump->fd()));
        sigpipe.emplace();
    }
    WallTimer timer(options.wall_time ? &*options.wall_time : nullptr, pidfd);
    if (options.wall_time) {
        TRY(timer.open());
        TRY(watch(timer.fd()));
        if (sync < 0) TRY(timer.start());  // nothing tells us when exec happens: count from now
    }
    CpuBudgetTimer cpu(options.cpu_budget ? &*options.cpu_budget : nullptr);
    if (options.cpu_budget) {
        TRY(cpu.open());
        TRY(watch(cpu.fd()));
        if (sync < 0) TRY(cpu.start());
    }

    std::string exec_error;
    Enforced enforced;
    for (;;) {
        epoll_event events[8];
        int n = ::epoll_wait(epoll.get(), events, 8, -1);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return fail_sys(errno, "epoll_wait");
        bool exited = false;
        for (int i = 0; i < n; ++i) exited = exited || events[i].data.fd == pidfd;
        for (int i = 0; i < n; ++i) {
            int fd = events[i].data.fd;
            if (fd == sync) {
                auto message = process::receive_message(sync);
                if (message && message->type == process::SyncType::exec_failed) exec_error = message->error.message();
                // EOF: the close-on-exec socket closed in init's execve. The workload runs; the clocks start.
                else if (!message && !exited) {
                    if (options.wall_time) TRY(timer.start());
                    if (options.cpu_budget) TRY(cpu.start());
                }
                ::epoll_ctl(epoll.get(), EPOLL_CTL_DEL, sync, nullptr);  // one report at most; EOF after exec
                sync = -1;
            } else if (fd == signals.get()) {
                signalfd_siginfo info{};
                if (::read(signals.get(), &info, sizeof info) == sizeof info) {
                    int signal = static_cast<int>(info.ssi_signo);
                    if (sys::pidfd_send_signal(pidfd, signal) == 0 && signal >= 1 && signal <= 64)
                        enforced.forwarded |= std::uint64_t{1} << (signal - 1);
                }
            } else if (options.pump && fd == options.pump->fd()) {
                options.pump->on_ready();
                if (options.pump->exceeded()) enforced.fire(Reason::output_limit);
            } else if (options.cpu_budget && fd == cpu.fd() && !exited) {
                if (cpu.expired()) enforced.fire(Reason::cpu_limit);
            } else if (options.wall_time && fd == timer.fd() && !exited) {
                // Init exiting in the same wakeup beat the deadline: it is not a timeout.
                timer.expired(enforced);
            }
        }
        if (!exited) continue;
        // A failed execve is reported just before init exits; don't lose it to ordering.
        if (sync >= 0) {
            if (auto message = process::receive_message(sync); message && message->type == process::SyncType::exec_failed)
                exec_error = message->error.message();
        }
        // Before the exit status: a cause recorded now is in the record before record_exit reads it.
        if (options.cpu_budget && cpu.exhausted_at_exit()) enforced.fire(Reason::cpu_limit);
        ExitStatus status = read_exit(pidfd, options);
        status.exec_error = exec_error;
        if (options.pump) {
            // The tail below the cap is never lost. With a pid namespace every writer died with init and EOF
            // comes at once; a process that outlived init and keeps the pipe open idle gets a second. The
            // byte past the cap may only be found here, after a workload that exited 0 (it still counts).
            options.pump->drain(std::chrono::seconds(1));
            status.stdout_bytes = options.pump->stdout_bytes();
            status.stderr_bytes = options.pump->stderr_bytes();
            if (options.pump->exceeded()) enforced.fire(Reason::output_limit);
        }
        status.enforced = enforced;
        return status;
    }
}

}  // namespace husk::monitor
