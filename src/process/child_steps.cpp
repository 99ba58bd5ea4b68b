#include "process/child_steps.hpp"

#include <fcntl.h>
#include <linux/close_range.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
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

void start_session() noexcept {
    ::setsid();
}

Result<void> become_root_in_user_ns() noexcept {
    TRY(check(::setresgid(0, 0, 0), "setresgid", "0"));
    return check(::setresuid(0, 0, 0), "setresuid", "0");
}

int open_own_status(int sync) noexcept {
    const int status_fd = ::open("/proc/self/status", O_RDONLY | O_CLOEXEC);
    if (status_fd < 0) step(sync, "posture", check(-1, "open", "/proc/self/status"));
    return status_fd;
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

// Finds the executable (a missing one fails with runc's words), points stdout/stderr at the given pipes
// when >= 0, and marks every fd but 0-2 and --preserve-fds close-on-exec. Dies on failure.
const char* find_executable_and_seal_fds(int sync, const WorkloadPlan& workload, const ConfinementFds& fds) noexcept {
    auto executable = find_executable(workload);
    if (!executable) die(sync, executable.error());
    if (fds.stdout_pipe >= 0) step(sync, "output pump", check(::dup2(fds.stdout_pipe, 1) == 1 ? 0 : -1, "dup2", "stdout"));
    if (fds.stderr_pipe >= 0) step(sync, "output pump", check(::dup2(fds.stderr_pipe, 2) == 2 ? 0 : -1, "dup2", "stderr"));
    step(sync, "fds", seal_fds(workload));
    return *executable;
}

// Landlock, then seccomp (docs/security.md, "Order in the container's init"); a notify listener fd goes to the parent.
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

// Steps 13-15 in one: everything the process can do before its confinement (the executable found, stdout/stderr
// at the output pump, every fd but 0-2 and --preserve-fds close-on-exec), then Landlock and seccomp.
void confine_for_execve(int sync, const WorkloadPlan& workload, const landlock::LandlockPlan& landlock,
                        const seccomp::SeccompPlan* seccomp, const ConfinementFds& fds, Confined& confined) noexcept {
    confined.executable = find_executable_and_seal_fds(sync, workload, fds);
    // husk-init's report pipe survives its execveat; husk-init makes it close-on-exec again before the program.
    if (fds.inherited_by_exec >= 0)
        step(sync, "husk-init", check(::fcntl(fds.inherited_by_exec, F_SETFD, 0), "fcntl", "husk-init report"));
    step(sync, "security", confine(landlock, seccomp, sync, confined.landlock_abi));
    // The filter once it is loaded: from then on the process makes only the calls every runtime makes there:
    // read (the status fd, the exec fifo), write (the sync socket), close, the startContainer hooks'
    // fork/exec and execve (docs/security.md, "Order in the container's init").
    confined.filter = seccomp;
}

// --die-with-parent: the kernel kills init when its parent (husk run, or the monitor) dies, even of SIGKILL,
// when nobody is left to watch the caller. Set after the last credential change, which would clear it
// (prctl(2) PR_SET_PDEATHSIG); under a seccomp filter loaded already the filter must allow prctl. A parent
// that died before this call is seen later: its end of the sync socket is closed, so writing `created` fails
// and init exits (getppid() cannot tell, it is 0 in a new pid namespace either way).
void set_parent_death_signal(int sync, const seccomp::SeccompPlan* filter, int signal) noexcept {
    confined_step(sync, filter, "die-with-parent",
                  check(::prctl(PR_SET_PDEATHSIG, signal, 0, 0, 0), "prctl PR_SET_PDEATHSIG"));
}

// prctl(2) PR_SET_NO_NEW_PRIVS (config.md "noNewPrivileges"): execve grants no privilege from then on (setuid
// bits, file capabilities), and the kernel takes Landlock and seccomp from a process without CAP_SYS_ADMIN.
void set_no_new_privs(int sync) noexcept {
    step(sync, "noNewPrivileges", check(::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "prctl PR_SET_NO_NEW_PRIVS"));
}

}  // namespace

Confined apply_credentials_and_confinement(int sync, const caps::CredentialsPlan& credentials,
                                           const WorkloadPlan& workload, const Confinement& confinement,
                                           const ConfinementFds& fds) noexcept {
    const landlock::LandlockPlan& landlock = confinement.landlock;
    const seccomp::SeccompPlan* seccomp = confinement.seccomp ? &*confinement.seccomp : nullptr;
    Confined confined;
    // Without no_new_privs: 13-15 before the capabilities are dropped, as runc does for seccomp (the filter must
    // then allow the credential calls too) and crun for the lookup (as root: execve itself checks the
    // workload's user).
    if (!workload.no_new_privileges) confine_for_execve(sync, workload, landlock, seccomp, fds, confined);
    // 12. Bounding set, ids, capabilities, umask; then the parent-death signal; then no_new_privs.
    apply_credentials(sync, confined.filter, credentials);
    if (fds.parent_death_signal != 0) set_parent_death_signal(sync, confined.filter, fds.parent_death_signal);
    if (!workload.no_new_privileges) return confined;
    set_no_new_privs(sync);
    // 13-15. The executable is looked up with the workload's own credentials.
    confine_for_execve(sync, workload, landlock, seccomp, fds, confined);
    return confined;
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

Error exec_workload(const Confined& confined, const WorkloadPlan& workload) noexcept {
    ::execve(confined.executable, workload.argv.data(), workload.envp.data());
    return Error::sys(errno, "exec", confined.executable);
}

[[noreturn]] void die_not_executed(int sync, const seccomp::SeccompPlan* filter, Error error, int exec_fifo) noexcept {
    if (exec_fifo >= 0) (void)!::write(exec_fifo, "!", 1);
    die_confined(sync, filter, error, SyncType::exec_failed);
}

}  // namespace husk::process::steps
