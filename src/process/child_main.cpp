// The containment recipe. Everything here runs in the freshly cloned init: system calls only, no allocation,
// no exceptions, no logging (docs/design.md, "Prepare in the parent, apply in the child"). A failing step sends its
// Error to the parent and exits.
#include "process/child_main.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "base/trace.hpp"
#include "process/child_steps.hpp"
#include "process/sync.hpp"

namespace husk::process {
namespace {

using steps::check;
using steps::confined_step;
using steps::die_confined;
using steps::step;

// The pty's slave is bound over /dev/console (runtime-spec config.md "process.terminal") before it becomes
// our controlling terminal and fds 0-2.
Result<void> setup_console(const ContainerPlan& plan, int sync) noexcept {
    int slave = TRY(steps::open_pty(plan.workload, sync));
    TRY(mnt::apply_console(plan.rootfs, slave));
    return steps::attach_terminal(slave);
}

// Steps 13-15 in one: everything init can do before its confinement (the executable found, stdout/stderr
// at the output pump, every fd but 0-2 and --preserve-fds close-on-exec), then Landlock and seccomp.
const char* confine_for_exec(const ContainerPlan& plan, const ChildFds& fds, int sync, int& landlock_abi) noexcept {
    const char* executable = steps::prepare_for_exec(plan.workload, fds.stdout_pipe, fds.stderr_pipe, sync);
    // husk-init's report pipe survives its execveat; husk-init makes it close-on-exec again before the program.
    if (plan.init_report_write)
        step(sync, "husk-init", check(::fcntl(plan.init_report_write.get(), F_SETFD, 0), "fcntl", "husk-init report"));
    step(sync, "security", steps::confine(plan.landlock, plan.seccomp ? &*plan.seccomp : nullptr, sync, landlock_abi));
    return executable;
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
    const WorkloadPlan& workload = plan.workload;

    // 0. Drop the parent's fds that must not stay open in init (its state-dir lock); then wait while the
    //    parent writes uid_map/gid_map and oom_score_adj.
    if (fds.close_first != nullptr)
        for (int fd : *fds.close_first) ::close(fd);
    if (auto go = receive_message(sync); !go || go->type != SyncType::go) ::_exit(1);
    // Under HUSK_TRACE only: the filter loaded below may deny getpid.
    const int traced = trace::enabled() ? ::getpid() : 0;
    trace::mark("init: go", traced);

    // 1. Join namespaces given by path; user first (config-linux.md "Namespaces").
    step(sync, "namespaces", ns::apply_namespaces(plan.namespaces));
    // 2. A new session, so a console can become our controlling terminal; root inside a user namespace.
    ::setsid();
    if (plan.namespaces.new_user || plan.namespaces.join_user) {
        step(sync, "user namespace", check(::setresgid(0, 0, 0), "setresgid", "0"));
        step(sync, "user namespace", check(::setresuid(0, 0, 0), "setresuid", "0"));
    }
    // 3. hostname and domainname (config.md "Hostname", "Domainname"), loopback up in a new netns.
    step(sync, "uts names", ns::apply_uts(plan.uts));
    if (plan.namespaces.new_net) step(sync, "loopback", net::apply_loopback_up(plan.loopback));
    trace::mark("init: namespaces, hostname, loopback", traced);
    // 4. Mounts: propagation, rootfs bind, config.md "Mounts" in order, /dev, linux.devices.
    step(sync, "rootfs", mnt::apply_mounts(plan.rootfs, mnt::TreeSource{request_bind_tree, &sync}));
    // 5. prestart + createRuntime hooks run in the parent now (runtime.md "Lifecycle" steps 5-6); we get the
    //    state JSON for our own hooks back, then run createContainer hooks before pivot_root.
    trace::mark("init: mounts", traced);
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
    trace::mark("init: pivot_root", traced);
    // 7. The console comes after the user's mounts and before the rootfs is made read-only.
    if (workload.terminal) step(sync, "console", setup_console(plan, sync));
    // 8. sysctl through the container's own /proc (config-linux.md "Sysctl").
    step(sync, "sysctl", sysctl::apply_sysctl(plan.sysctl));
    // 9. readonlyPaths, maskedPaths, read-only root (runc's order).
    step(sync, "rootfs", mnt::apply_finalize(plan.rootfs));
    trace::mark("init: masks, read-only paths", traced);
    // 10. rlimits while we still hold CAP_SYS_RESOURCE.
    step(sync, "rlimits", rlimit::apply_rlimits(plan.rlimits));
    // 11. cwd, inside the new root.
    step(sync, "cwd", steps::enter_cwd(workload));
    // 12. docs/security.md's order: bounding set, ids, capabilities, umask, no_new_privs; 13-14 everything
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
    if (!workload.no_new_privileges) {
        executable = confine_for_exec(plan, fds, sync, landlock_abi);
        if (plan.seccomp) filter = &*plan.seccomp;
    }
    steps::apply_credentials(sync, filter, plan.credentials);
    // --die-with-parent: the kernel kills init when its parent (husk run, or the monitor) dies, even of SIGKILL,
    // when nobody is left to watch the caller. Set here, after the last credential change, which would clear it
    // (prctl(2) PR_SET_PDEATHSIG); under a seccomp filter loaded already the filter must allow prctl. A parent
    // that died before this call is seen below: its end of the sync socket is closed, so writing `created` fails
    // and init exits (getppid() cannot tell, it is 0 in a new pid namespace either way).
    if (fds.parent_death_signal != 0)
        confined_step(sync, filter, "die-with-parent",
                      check(::prctl(PR_SET_PDEATHSIG, fds.parent_death_signal, 0, 0, 0), "prctl PR_SET_PDEATHSIG"));
    if (workload.no_new_privileges) {
        step(sync, "noNewPrivileges", check(::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "prctl PR_SET_NO_NEW_PRIVS"));
        // 13-15. The executable is looked up with the workload's own credentials.
        executable = confine_for_exec(plan, fds, sync, landlock_abi);
        if (plan.seccomp) filter = &*plan.seccomp;
    }
    trace::mark("init: credentials, confinement", traced);
    // 16. The verified posture, then created: wait until `husk start` writes to the exec fifo.
    confined_step(sync, filter, "posture", steps::report_posture(sync, status_fd, landlock_abi));
    confined_step(sync, filter, "sync", write_message(sync, SyncType::created));
    confined_step(sync, filter, "start", wait_for_start(fds.exec_fifo));
    trace::mark("init: started", traced);
    // 17. startContainer hooks, then the workload. `husk start` waits until we let go of exec.fifo (it is
    //     close-on-exec); a byte written back first tells it the workload was not executed.
    if (auto r = hooks::apply_child_hooks(plan.start_container_hooks, created_state, created_length); !r) {
        Error e = r.error();
        (void)!::write(fds.exec_fifo, "!", 1);
        die_confined(sync, filter, e.context("startContainer hook"), SyncType::exec_failed);
    }
    //     With run.husk.init, husk-init from its sealed memfd runs the program as its child (the lookup above
    //     still refuses a program that is not there, before created).
    //     Every signal is blocked first, and stays blocked across execveat until husk-init waits for them:
    //     `start` returns once we exec, and a `husk kill` right then would otherwise meet pid 1 without a
    //     handler, where the kernel drops it (pid_namespaces(7)). Blocked, it waits to be forwarded.
    trace::mark("init: exec", traced);
    const char* operation = "exec";
    if (plan.init) {
        sigset_t all;
        ::sigfillset(&all);
        if (::sigprocmask(SIG_SETMASK, &all, nullptr) != 0) operation = "sigprocmask";
        else ::execveat(plan.init.get(), "", plan.init_argv.data(), workload.envp.data(), AT_EMPTY_PATH);
    } else {
        ::execve(executable, workload.argv.data(), workload.envp.data());
    }
    Error e = Error::sys(errno, operation, plan.init ? "husk-init" : executable);
    (void)!::write(fds.exec_fifo, "!", 1);
    die_confined(sync, filter, e, SyncType::exec_failed);
}

}  // namespace husk::process
