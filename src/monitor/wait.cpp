#include "monitor/wait.hpp"

#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <optional>
#include <string>

#include "base/proc_stat.hpp"
#include "base/sys.hpp"
#include "husk/unique_fd.hpp"
#include "monitor/signal_forwarder.hpp"
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

// init's exit status from its pidfd, once the kernel has it.
std::optional<ExitStatus> pidfd_exit_status(int pidfd) {
    PidfdInfo info{};
    info.mask = pidfd_info_exit;
    if (::ioctl(pidfd, pidfd_get_info, &info) == 0 && (info.mask & pidfd_info_exit) != 0)
        return decode_wait_status(info.exit_code);
    return std::nullopt;
}

// The kernel fills PIDFD_INFO_EXIT when the process is reaped (release_task), not when it exits. Until the
// subreaper reaps it, init is a zombie and /proc/PID/stat field 52 holds the same wait status. So: ask the
// pidfd; failing that read the zombie's status (same pid and start time, so it is our init); while init is
// still exiting (not yet a zombie), ask again. A subreaper that never reaps leaves the zombie readable.
// Once init is gone from /proc it was reaped, and release_task fills PIDFD_INFO_EXIT before it unhashes the
// pid: one more ask settles it. A kernel without PIDFD_INFO_EXIT (before 6.15) then keeps the status nowhere,
// so the status is unknown at once, instead of after seconds of asking (the verdict, and `state`, wait on it).
ExitStatus read_watched_exit(int pidfd, const WaitOptions& options) {
    for (int attempt = 0; attempt < 500; ++attempt) {
        if (auto status = pidfd_exit_status(pidfd)) return *status;
        if (options.pid > 0) {
            auto stat = read_proc_stat(options.pid);
            bool ours = stat && stat->start_time == options.start_time;
            if (ours && stat->state == 'Z') return decode_wait_status(stat->exit_code);
            if (!ours) return pidfd_exit_status(pidfd).value_or(ExitStatus{});
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

// run.husk.init: husk-init exited with code 128 + N and reported, just before, that the program died of signal
// N. Taken only when the two agree: what husk-init reported and what its own exit shows.
void apply_init_report(ExitStatus& status, int report) {
    if (report < 0 || !status.known || status.signal != 0 || status.code <= 128) return;
    int program = 0;
    if (::read(report, &program, sizeof program) != static_cast<ssize_t>(sizeof program)) return;
    if (!WIFSIGNALED(program) || 128 + WTERMSIG(program) != status.code) return;
    status.signal = WTERMSIG(program);
    status.signal_from_init = true;
}

// epoll_event.data.u64 of each fd: init, its sync socket, then the watchers by index.
constexpr std::uint64_t pidfd_key = 0, sync_key = 1, first_watcher_key = 2;

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
    auto watch = [&](int fd, std::uint64_t key) -> Result<void> {
        epoll_event event{};
        event.events = EPOLLIN;
        event.data.u64 = key;
        if (::epoll_ctl(epoll.get(), EPOLL_CTL_ADD, fd, &event) != 0) return fail_sys(errno, "epoll_ctl");
        return {};
    };
    TRY(watch(pidfd, pidfd_key));
    int sync = options.sync;
    if (sync >= 0) TRY(watch(sync, sync_key));
    std::unique_ptr<Watcher> forwarder;
    std::vector<Watcher*> watchers;
    if (options.forward) {
        forwarder = forward_signals(*options.forward, pidfd, std::move(options.cancel));
        watchers.push_back(forwarder.get());
    }
    for (auto& watcher : options.watchers) watchers.push_back(watcher.get());
    for (std::size_t i = 0; i < watchers.size(); ++i) TRY(watch(TRY(watchers[i]->open()), first_watcher_key + i));
    auto start = [&]() -> Result<void> {
        for (Watcher* watcher : watchers) TRY(watcher->start());
        return {};
    };
    if (sync < 0) TRY(start());  // nothing tells us when exec happens: count from now

    std::string exec_error;
    Enforced enforced;
    for (;;) {
        epoll_event events[8];
        int n = ::epoll_wait(epoll.get(), events, 8, -1);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return fail_sys(errno, "epoll_wait");
        bool exited = false;
        for (int i = 0; i < n; ++i) exited = exited || events[i].data.u64 == pidfd_key;
        for (int i = 0; i < n; ++i) {
            std::uint64_t key = events[i].data.u64;
            if (key == sync_key && sync >= 0) {
                auto message = process::receive_message(sync);
                if (message && message->type == process::SyncType::exec_failed) exec_error = message->error.message();
                // EOF: the close-on-exec socket closed in init's execve. The workload runs; the clocks start.
                else if (!message && !exited) TRY(start());
                ::epoll_ctl(epoll.get(), EPOLL_CTL_DEL, sync, nullptr);  // one report at most; EOF after exec
                sync = -1;
            } else if (key >= first_watcher_key && key - first_watcher_key < watchers.size()) {
                watchers[key - first_watcher_key]->on_ready(exited, enforced);
            }
        }
        if (!exited) continue;
        // A failed execve is reported just before init exits; don't lose it to ordering.
        if (sync >= 0) {
            if (auto message = process::receive_message(sync); message && message->type == process::SyncType::exec_failed)
                exec_error = message->error.message();
        }
        for (Watcher* watcher : watchers) watcher->on_init_exit(enforced);
        ExitStatus status = read_exit(pidfd, options);
        apply_init_report(status, options.init_report);
        status.exec_error = exec_error;
        status.enforced = enforced;
        for (Watcher* watcher : watchers) watcher->finish(status);
        return status;
    }
}

}  // namespace husk::monitor
