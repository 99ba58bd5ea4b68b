#include "process/child_steps.hpp"

#include <fcntl.h>
#include <linux/close_range.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <termios.h>
#include <unistd.h>

#include <cerrno>

#include "process/posture.hpp"

namespace husk::process::steps {

// write_message, not send_message: this may run after the seccomp filter is loaded.
[[noreturn]] void die(int sync, const Error& error, SyncType type) noexcept {
    (void)write_message(sync, type, &error);
    ::_exit(type == SyncType::exec_failed ? 127 : 1);
}

void step(int sync, const char* name, Result<void> result) noexcept {
    if (result) return;
    Error e = result.error();
    e.context(name);
    die(sync, e);
}

Result<void> check(int rc, const char* op, const char* subject) noexcept {
    if (rc != 0) return fail_sys(errno, op, subject);
    return {};
}

Result<void> close_fds_except(unsigned first, const int* keep, int count) noexcept {
    int sorted[8];
    if (count < 0 || count > 8) return fail_sys(EINVAL, "close_range", "fds to keep");
    for (int i = 0; i < count; ++i) {  // insertion sort: a handful of fds, no allocation
        int j = i;
        for (; j > 0 && sorted[j - 1] > keep[i]; --j) sorted[j] = sorted[j - 1];
        sorted[j] = keep[i];
    }
    unsigned from = first;
    for (int i = 0; i < count; ++i) {
        if (sorted[i] < 0 || static_cast<unsigned>(sorted[i]) < from) continue;
        auto kept = static_cast<unsigned>(sorted[i]);
        if (kept > from && ::syscall(SYS_close_range, from, kept - 1, 0) != 0) return fail_sys(errno, "close_range");
        from = kept + 1;
    }
    if (::syscall(SYS_close_range, from, ~0u, 0) != 0) return fail_sys(errno, "close_range");
    return {};
}

// runtime-spec config.md "process.terminal"; the master goes to the parent, which forwards it to --console-socket or keeps it for the foreground terminal relay.
Result<int> open_pty(const WorkloadPlan& workload, int sync) noexcept {
    int master = ::open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (master < 0) return fail_sys(errno, "open", "/dev/ptmx");
    int unlock = 0;
    if (::ioctl(master, TIOCSPTLCK, &unlock) != 0) return fail_sys(errno, "unlockpt");
    int slave = ::ioctl(master, TIOCGPTPEER, O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (slave < 0) return fail_sys(errno, "open pty peer");
    if (workload.console_rows != 0 || workload.console_columns != 0) {
        winsize size{};
        size.ws_row = workload.console_rows;
        size.ws_col = workload.console_columns;
        if (::ioctl(slave, TIOCSWINSZ, &size) != 0) return fail_sys(errno, "ioctl TIOCSWINSZ", "process.consoleSize");
    }
    TRY(send_message(sync, SyncType::console, nullptr, master));
    ::close(master);
    return slave;
}

Result<void> attach_terminal(int slave) noexcept {
    TRY(check(::ioctl(slave, TIOCSCTTY, 0), "ioctl TIOCSCTTY"));
    for (int fd = 0; fd < 3; ++fd) TRY(check(::dup2(slave, fd) == fd ? 0 : -1, "dup2", "console"));
    ::close(slave);
    return {};
}

// getcwd says "(unreachable)" for a directory outside our root.
Result<void> enter_cwd(const WorkloadPlan& workload) noexcept {
    if (::chdir(workload.cwd.c_str()) != 0) return fail_sys(errno, "chdir", workload.cwd.c_str());
    char buffer[4096];
    if (::getcwd(buffer, sizeof buffer) == nullptr || buffer[0] != '/')
        return fail_sys(EPERM, "process.cwd is outside the container root", workload.cwd.c_str());
    return {};
}

namespace {

// Every inherited fd above 2 except the preserved ones gets CLOEXEC, so the workload sees only 0-2 and
// 3..3+preserve_fds-1 (CVE-2024-21626 class: nothing of the host may leak in). Done before the filter is
// loaded: every fd husk opens later (Landlock's ruleset, the notify listener) is close-on-exec from birth.
Result<void> seal_fds(const WorkloadPlan& workload) noexcept {
    unsigned first_closed = 3u + static_cast<unsigned>(workload.preserve_fds);
    if (::syscall(SYS_close_range, first_closed, ~0u, CLOSE_RANGE_CLOEXEC) != 0) return fail_sys(errno, "close_range");
    for (int fd = 3; fd < 3 + workload.preserve_fds; ++fd) {
        if (::fcntl(fd, F_SETFD, 0) != 0) return fail_sys(errno, "preserve fd");
    }
    return {};
}

}  // namespace

const char* prepare_for_exec(const WorkloadPlan& workload, int stdout_pipe, int stderr_pipe, int sync) noexcept {
    auto executable = find_executable(workload);
    if (!executable) die(sync, executable.error());
    if (stdout_pipe >= 0) step(sync, "output pump", check(::dup2(stdout_pipe, 1) == 1 ? 0 : -1, "dup2", "stdout"));
    if (stderr_pipe >= 0) step(sync, "output pump", check(::dup2(stderr_pipe, 2) == 2 ? 0 : -1, "dup2", "stderr"));
    step(sync, "fds", seal_fds(workload));
    return *executable;
}

Result<void> confine(const landlock::LandlockPlan& landlock, const seccomp::SeccompPlan* seccomp, int sync,
                     int& landlock_abi) noexcept {
    if (landlock.enforce) landlock_abi = TRY(landlock::apply_landlock(landlock));
    if (seccomp == nullptr) return {};
    auto listener = seccomp::apply_seccomp(*seccomp);
    if (!listener) {
        Error e = listener.error();
        return fail(e.context("linux.seccomp"));
    }
    if (*listener < 0) return {};
    auto sent = send_message(sync, SyncType::seccomp_listener, nullptr, *listener);
    ::close(*listener);
    return sent;
}

Result<void> report_posture(int sync, int status_fd, int landlock_abi) noexcept {
    Posture posture = TRY(read_posture(status_fd, landlock_abi));
    ::close(status_fd);
    return write_message(sync, SyncType::posture, nullptr, reinterpret_cast<const char*>(&posture), sizeof posture);
}

[[noreturn]] void die_confined(int sync, const seccomp::SeccompPlan* filter, Error error, SyncType type) noexcept {
    if (filter != nullptr && seccomp::may_deny_with(*filter, error.err))
        error.context("linux.seccomp is in force and may deny this call");
    die(sync, error, type);
}

void confined_step(int sync, const seccomp::SeccompPlan* filter, const char* name, Result<void> result) noexcept {
    if (result) return;
    Error e = result.error();
    die_confined(sync, filter, e.context(name));
}

void apply_credentials(int sync, const seccomp::SeccompPlan* filter, const caps::CredentialsPlan& credentials) noexcept {
    confined_step(sync, filter, "capabilities", caps::apply_bounding(credentials));
    confined_step(sync, filter, "user", caps::apply_ids(credentials));
    confined_step(sync, filter, "capabilities", caps::apply_capabilities(credentials));
    caps::apply_umask(credentials);
}

}  // namespace husk::process::steps
