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

struct InitWait::State {
    int epoll = -1;
    std::uint64_t first_key = 0;
    int pidfd = -1;
    WaitOptions options;
    int sync = -1;
    std::unique_ptr<Watcher> forwarder;
    std::vector<Watcher*> watchers;
    std::vector<int> fds;  // in the epoll set, removed at the end
    std::string exec_error;
    Enforced enforced;
    bool done = false;

    Result<void> watch(int fd, std::uint64_t key) {
        epoll_event event{};
        event.events = EPOLLIN;
        event.data.u64 = first_key + key;
        if (::epoll_ctl(epoll, EPOLL_CTL_ADD, fd, &event) != 0) return fail_sys(errno, "epoll_ctl");
        fds.push_back(fd);
        return {};
    }
    void unwatch(int fd) {
        ::epoll_ctl(epoll, EPOLL_CTL_DEL, fd, nullptr);
        std::erase(fds, fd);
    }
    Result<void> start() {
        for (Watcher* watcher : watchers) TRY(watcher->start());
        return {};
    }
};

InitWait::InitWait(std::unique_ptr<State> state) : state_(std::move(state)) {}

InitWait::~InitWait() {
    for (int fd : state_->fds) ::epoll_ctl(state_->epoll, EPOLL_CTL_DEL, fd, nullptr);
}

std::uint64_t InitWait::key_count() const { return first_watcher_key + state_->watchers.size(); }

Result<std::unique_ptr<InitWait>> InitWait::open(int epoll, std::uint64_t first_key, int pidfd, WaitOptions options) {
    auto state = std::make_unique<State>();
    state->epoll = epoll;
    state->first_key = first_key;
    state->pidfd = pidfd;
    state->options = std::move(options);
    std::unique_ptr<InitWait> wait(new InitWait(std::move(state)));
    State& s = *wait->state_;
    TRY(s.watch(pidfd, pidfd_key));
    s.sync = s.options.sync;
    if (s.sync >= 0) TRY(s.watch(s.sync, sync_key));
    if (s.options.forward) {
        s.forwarder = forward_signals(*s.options.forward, pidfd, std::move(s.options.cancel));
        s.watchers.push_back(s.forwarder.get());
    }
    for (auto& watcher : s.options.watchers) s.watchers.push_back(watcher.get());
    for (std::size_t i = 0; i < s.watchers.size(); ++i) TRY(s.watch(TRY(s.watchers[i]->open()), first_watcher_key + i));
    if (s.sync < 0) TRY(s.start());  // nothing tells us when exec happens: count from now
    return wait;
}

Result<std::optional<ExitStatus>> InitWait::on_ready(std::span<const std::uint64_t> keys) {
    State& s = *state_;
    if (s.done) return std::nullopt;
    auto local = [&](std::uint64_t key) -> std::optional<std::uint64_t> {
        if (key < s.first_key || key - s.first_key >= key_count()) return std::nullopt;
        return key - s.first_key;
    };
    bool exited = false;
    for (std::uint64_t key : keys) exited = exited || local(key) == pidfd_key;
    for (std::uint64_t key : keys) {
        auto k = local(key);
        if (!k) continue;
        if (*k == sync_key && s.sync >= 0) {
            auto message = process::receive_message(s.sync);
            if (message && message->type == process::SyncType::exec_failed) s.exec_error = message->error.message();
            // EOF: the close-on-exec socket closed in init's execve. The workload runs; the clocks start.
            else if (!message && !exited) TRY(s.start());
            s.unwatch(s.sync);  // one report at most; EOF after exec
            s.sync = -1;
        } else if (*k >= first_watcher_key && *k - first_watcher_key < s.watchers.size()) {
            s.watchers[*k - first_watcher_key]->on_ready(exited, s.enforced);
        }
    }
    if (!exited) return std::nullopt;
    // A failed execve is reported just before init exits; don't lose it to ordering.
    if (s.sync >= 0) {
        if (auto message = process::receive_message(s.sync); message && message->type == process::SyncType::exec_failed)
            s.exec_error = message->error.message();
    }
    for (Watcher* watcher : s.watchers) watcher->on_init_exit(s.enforced);
    ExitStatus status = read_exit(s.pidfd, s.options);
    apply_init_report(status, s.options.init_report);
    status.exec_error = s.exec_error;
    status.enforced = s.enforced;
    for (Watcher* watcher : s.watchers) watcher->finish(status);
    for (int fd : s.fds) ::epoll_ctl(s.epoll, EPOLL_CTL_DEL, fd, nullptr);
    s.fds.clear();
    s.done = true;
    return status;
}

Result<ExitStatus> wait_for_exit(int pidfd, WaitOptions& options) {
    UniqueFd epoll(::epoll_create1(EPOLL_CLOEXEC));
    if (!epoll) return fail_sys(errno, "epoll_create1");
    auto wait = TRY(InitWait::open(epoll.get(), 0, pidfd, std::move(options)));
    for (;;) {
        epoll_event events[8];
        int n = ::epoll_wait(epoll.get(), events, 8, -1);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return fail_sys(errno, "epoll_wait");
        std::uint64_t keys[8];
        for (int i = 0; i < n; ++i) keys[i] = events[i].data.u64;
        if (auto status = TRY(wait->on_ready(std::span<const std::uint64_t>(keys, static_cast<std::size_t>(n)))))
            return *status;
    }
}

}  // namespace husk::monitor
