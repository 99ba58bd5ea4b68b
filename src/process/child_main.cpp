// The containment recipe. Everything here runs in the freshly cloned init: system calls only, no allocation,
// no exceptions, no logging (STYLE.md rule 1). A failing step sends its Error to the parent and exits.
#include "process/child_main.hpp"

#include <fcntl.h>
#include <linux/close_range.h>
#include <sys/syscall.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "process/sync.hpp"

namespace husk::process {
namespace {

// write_message, not send_message: this may run after the seccomp filter is loaded.
[[noreturn]] void die(int sync, const Error& error, SyncType type = SyncType::error) noexcept {
    (void)write_message(sync, type, &error);
    ::_exit(type == SyncType::exec_failed ? 127 : 1);
}

// Runs one step; on failure reports "<step>: <error>" and exits.
void step(int sync, const char* name, Result<void> result) noexcept {
    if (result) return;
    Error e = result.error();
    e.context(name);
    die(sync, e);
}

Result<void> check(int rc, const char* op, const char* subject = "") noexcept {
    if (rc != 0) return fail_sys(errno, op, subject);
    return {};
}

// A pty from the container's own devpts; the master goes to the parent (for --console-socket, or for husk run's
// relay of its own terminal), the slave becomes /dev/console and the controlling terminal on fds 0-2.
// runtime-spec config.md "process.terminal".
Result<void> setup_console(const ContainerPlan& plan, int sync) noexcept {
    int master = ::open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (master < 0) return fail_sys(errno, "open", "/dev/ptmx");
    int unlock = 0;
    if (::ioctl(master, TIOCSPTLCK, &unlock) != 0) return fail_sys(errno, "unlockpt");
    int slave = ::ioctl(master, TIOCGPTPEER, O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (slave < 0) return fail_sys(errno, "open pty peer");
    if (plan.exec.console_rows != 0 || plan.exec.console_columns != 0) {
        winsize size{};
        size.ws_row = plan.exec.console_rows;
        size.ws_col = plan.exec.console_columns;
        if (::ioctl(slave, TIOCSWINSZ, &size) != 0) return fail_sys(errno, "ioctl TIOCSWINSZ", "process.consoleSize");
    }
    TRY(send_message(sync, SyncType::console, nullptr, master));
    ::close(master);
    TRY(mnt::apply_console(plan.rootfs, slave));
    TRY(check(::ioctl(slave, TIOCSCTTY, 0), "ioctl TIOCSCTTY"));
    for (int fd = 0; fd < 3; ++fd) TRY(check(::dup2(slave, fd) == fd ? 0 : -1, "dup2", "console"));
    ::close(slave);
    return {};
}

// Every inherited fd above 2 except the preserved ones gets CLOEXEC, so the workload sees only 0-2 and
// 3..3+preserve_fds-1 (CVE-2024-21626 class: nothing of the host may leak in). Done before the filter is
// loaded: every fd husk opens later (Landlock's ruleset, the notify listener) is close-on-exec from birth.
Result<void> seal_fds(const ExecPlan& exec) noexcept {
    unsigned first_closed = 3u + static_cast<unsigned>(exec.preserve_fds);
    if (::syscall(SYS_close_range, first_closed, ~0u, CLOSE_RANGE_CLOEXEC) != 0) return fail_sys(errno, "close_range");
    for (int fd = 3; fd < 3 + exec.preserve_fds; ++fd) {
        if (::fcntl(fd, F_SETFD, 0) != 0) return fail_sys(errno, "preserve fd");
    }
    return {};
}

// After pivot_root and chdir, the working directory must be reachable from the container's root: getcwd
// says "(unreachable)" for a directory outside it.
Result<void> enter_cwd(const ExecPlan& exec) noexcept {
    if (::chdir(exec.cwd.c_str()) != 0) return fail_sys(errno, "chdir", exec.cwd.c_str());
    char buffer[4096];
    if (::getcwd(buffer, sizeof buffer) == nullptr || buffer[0] != '/')
        return fail_sys(EPERM, "process.cwd is outside the container root", exec.cwd.c_str());
    return {};
}

// Landlock, then seccomp (DESIGN.md §6). A notify listener fd goes to the parent, which hands it to
// linux.seccomp.listenerPath while `create` still runs (as runc does).
Result<void> confine(const ContainerPlan& plan, int sync, int& landlock_abi) noexcept {
    if (plan.landlock.enforce) landlock_abi = TRY(landlock::apply_landlock(plan.landlock));
    if (!plan.seccomp) return {};
    auto listener = seccomp::apply_seccomp(*plan.seccomp);
    if (!listener) {
        Error e = listener.error();
        return fail(e.context("linux.seccomp"));
    }
    if (*listener < 0) return {};
    auto sent = send_message(sync, SyncType::seccomp_listener, nullptr, *listener);
    ::close(*listener);
    return sent;
}

// What is in force now, to the parent, which compares it with what was asked (DESIGN.md §6). Runs under the
// filter: read from an fd opened before, write to the sync socket, close.
Result<void> report_posture(int sync, int status_fd, int landlock_abi) noexcept {
    Posture posture = TRY(read_posture(status_fd, landlock_abi));
    ::close(status_fd);
    return write_message(sync, SyncType::posture, nullptr, reinterpret_cast<const char*>(&posture), sizeof posture);
}

// Steps 13-14, everything init can do before its confinement: find the executable (a missing binary fails
// `create`, as with runc), point stdout/stderr at the output pump (setup and createContainer hooks kept the
// original ones), and mark every fd but 0-2 and --preserve-fds close-on-exec.
const char* prepare_for_exec(const ExecPlan& exec, const ChildFds& fds, int sync) noexcept {
    auto executable = find_executable(exec);
    if (!executable) die(sync, executable.error());
    if (fds.stdout_pipe >= 0) step(sync, "output pump", check(::dup2(fds.stdout_pipe, 1) == 1 ? 0 : -1, "dup2", "stdout"));
    if (fds.stderr_pipe >= 0) step(sync, "output pump", check(::dup2(fds.stderr_pipe, 2) == 2 ? 0 : -1, "dup2", "stderr"));
    step(sync, "fds", seal_fds(exec));
    return *executable;
}

// After the filter is loaded (`filter` not null), a call that fails with an errno the filter returns may have
// been denied by the profile rather than have failed on its own: say so, so that "permission denied" does not
// point elsewhere.
[[noreturn]] void die_confined(int sync, const seccomp::SeccompPlan* filter, Error error,
                               SyncType type = SyncType::error) noexcept {
    if (filter != nullptr && seccomp::may_deny_with(*filter, error.err))
        error.context("linux.seccomp is in force and may deny this call");
    die(sync, error, type);
}

void confined_step(int sync, const seccomp::SeccompPlan* filter, const char* name, Result<void> result) noexcept {
    if (result) return;
    Error e = result.error();
    die_confined(sync, filter, e.context(name));
}

Result<void> wait_for_start(int fifo) noexcept {
    char byte;
    for (;;) {
        ssize_t n = ::read(fifo, &byte, 1);
        if (n == 1) return {};
        if (n < 0 && errno == EINTR) continue;
        return fail_sys(n < 0 ? errno : EPIPE, "wait for start", "exec.fifo");
    }
}

}  // namespace

[[noreturn]] void child_main(const ContainerPlan& plan, ChildFds fds, ChildBuffers& buffers) noexcept {
    const int sync = fds.sync;
    const ExecPlan& exec = plan.exec;

    // 0. Drop the parent's fds that must not stay open in init (its state-dir lock); then wait while the
    //    parent writes uid_map/gid_map and oom_score_adj.
    if (fds.close_first != nullptr)
        for (int fd : *fds.close_first) ::close(fd);
    if (auto go = receive_message(sync); !go || go->type != SyncType::go) ::_exit(1);

    // 1. Join namespaces given by path; user first (config-linux.md "Namespaces").
    step(sync, "namespaces", ns::apply_namespaces(plan.namespaces));
    // 2. A new session, so a console can become our controlling terminal; root inside a user namespace.
    ::setsid();
    if (plan.namespaces.new_user || plan.namespaces.join_user) {
        step(sync, "user namespace", check(::setresgid(0, 0, 0), "setresgid", "0"));
        step(sync, "user namespace", check(::setresuid(0, 0, 0), "setresuid", "0"));
    }
    // 3. hostname and domainname (config.md "Hostname", "Domainname"), loopback up in a new netns.
    if (exec.set_hostname)
        step(sync, "hostname", check(::sethostname(exec.hostname.data(), exec.hostname.size()), "sethostname"));
    if (exec.set_domainname)
        step(sync, "domainname",
             check(::setdomainname(exec.domainname.data(), exec.domainname.size()), "setdomainname"));
    if (plan.namespaces.new_net) step(sync, "loopback", net::apply_loopback_up(plan.loopback));
    // 4. Mounts: propagation, rootfs bind, config.md "Mounts" in order, /dev, linux.devices.
    step(sync, "rootfs", mnt::apply_mounts(plan.rootfs, mnt::TreeSource{request_bind_tree, &sync}));
    // 5. prestart + createRuntime hooks run in the parent now (runtime.md "Lifecycle" steps 5-6); we get the
    //    state JSON for our own hooks back, then run createContainer hooks before pivot_root.
    step(sync, "sync", send_message(sync, SyncType::hooks_request));
    auto done = receive_message(sync, nullptr, buffers.state_json.data(), buffers.state_json.size());
    if (!done || done->type != SyncType::hooks_done) ::_exit(1);
    const char* creating_state = buffers.state_json.data();
    const std::size_t creating_length = ::strnlen(creating_state, done->payload_length);
    const char* created_state = creating_state + creating_length + 1;
    const std::size_t created_length = done->payload_length - creating_length - 1;
    step(sync, "createContainer hook",
         hooks::apply_child_hooks(plan.create_container_hooks, creating_state, creating_length));
    // 6. pivot_root (or MS_MOVE + chroot with --no-pivot). Before it, our status file in the host's /proc
    //    (the container may mount none), read at the end for the verified posture.
    const int status_fd = ::open("/proc/self/status", O_RDONLY | O_CLOEXEC);
    if (status_fd < 0) step(sync, "posture", check(-1, "open", "/proc/self/status"));
    step(sync, "pivot root", mnt::apply_pivot(plan.rootfs));
    // 7. The console comes after the user's mounts and before the rootfs is made read-only.
    if (exec.terminal) step(sync, "console", setup_console(plan, sync));
    // 8. sysctl through the container's own /proc (config-linux.md "Sysctl").
    step(sync, "sysctl", sysctl::apply_sysctl(plan.sysctl));
    // 9. readonlyPaths, maskedPaths, read-only root (runc's order).
    step(sync, "rootfs", mnt::apply_finalize(plan.rootfs));
    // 10. rlimits while we still hold CAP_SYS_RESOURCE.
    step(sync, "rlimits", rlimit::apply_rlimits(plan.rlimits));
    // 11. cwd, inside the new root.
    step(sync, "cwd", enter_cwd(exec));
    // 12. DESIGN.md section 6 order: bounding set, ids, capabilities, umask, no_new_privs; 13-14 everything
    //     else init can do before its confinement (prepare_for_exec); 15. Landlock, then seccomp. Without
    //     no_new_privs the kernel takes a Landlock domain or a seccomp filter only from a holder of
    //     CAP_SYS_ADMIN, so then 13-15 come before the capabilities are dropped, as runc does for seccomp (the
    //     filter must then allow the credential calls too) and crun for the lookup (as root: execve itself
    //     checks the workload's user).
    int landlock_abi = 0;
    const char* executable = nullptr;
    // The filter once it is loaded: from then on init makes only the calls every runtime makes there: read
    // (the status fd opened in step 6, the exec fifo), write (the sync socket), close, the startContainer
    // hooks' fork/exec and execve (docs/security.md, "Order in the container's init").
    const seccomp::SeccompPlan* filter = nullptr;
    if (!exec.no_new_privileges) {
        executable = prepare_for_exec(exec, fds, sync);
        step(sync, "security", confine(plan, sync, landlock_abi));
        if (plan.seccomp) filter = &*plan.seccomp;
    }
    confined_step(sync, filter, "capabilities", caps::apply_bounding(plan.credentials));
    confined_step(sync, filter, "user", caps::apply_ids(plan.credentials));
    confined_step(sync, filter, "capabilities", caps::apply_capabilities(plan.credentials));
    caps::apply_umask(plan.credentials);
    if (exec.no_new_privileges) {
        step(sync, "noNewPrivileges", check(::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "prctl PR_SET_NO_NEW_PRIVS"));
        // 13-15. The executable is looked up with the workload's own credentials.
        executable = prepare_for_exec(exec, fds, sync);
        step(sync, "security", confine(plan, sync, landlock_abi));
        if (plan.seccomp) filter = &*plan.seccomp;
    }
    // 16. The verified posture, then created: wait until `husk start` writes to the exec fifo.
    confined_step(sync, filter, "posture", report_posture(sync, status_fd, landlock_abi));
    confined_step(sync, filter, "sync", write_message(sync, SyncType::created));
    confined_step(sync, filter, "start", wait_for_start(fds.exec_fifo));
    // 17. startContainer hooks, then the workload. `husk start` waits until we let go of exec.fifo (it is
    //     close-on-exec); a byte written back first tells it the workload was not executed.
    if (auto r = hooks::apply_child_hooks(plan.start_container_hooks, created_state, created_length); !r) {
        Error e = r.error();
        (void)!::write(fds.exec_fifo, "!", 1);
        die_confined(sync, filter, e.context("startContainer hook"), SyncType::exec_failed);
    }
    ::execve(executable, exec.argv.data(), exec.envp.data());
    Error e = Error::sys(errno, "exec", executable);
    (void)!::write(fds.exec_fifo, "!", 1);
    die_confined(sync, filter, e, SyncType::exec_failed);
}

}  // namespace husk::process
