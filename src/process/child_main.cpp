// The containment recipe. Everything here runs in the freshly cloned init: system calls only, no allocation,
// no exceptions, no logging (docs/design.md, "Prepare in the parent, apply in the child"). A failing step sends its
// Error to the parent and exits.
#include "process/child_main.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "base/trace.hpp"
#include "process/child_steps.hpp"
#include "process/sync.hpp"

namespace husk::process {
namespace {

using steps::confined_step;
using steps::step;

// The parent's fds that must not stay open in init (its state-dir lock).
void close_parent_fds(const std::vector<int>* fds) noexcept {
    if (fds != nullptr)
        for (int fd : *fds) ::close(fd);
}

// The parent writes uid_map/gid_map and oom_score_adj meanwhile; anything but `go` (or EOF) ends init.
void wait_for_go(int sync) noexcept {
    if (auto go = receive_message(sync); !go || go->type != SyncType::go) ::_exit(1);
}

// The state JSON of our own hooks ("creating", then "created"), which the parent sends once it has run its
// prestart and createRuntime hooks: `creating-JSON \0 created-JSON` in buffers.state_json.
struct HookStates {
    const char* creating = nullptr;
    std::size_t creating_length = 0;
    const char* created = nullptr;
    std::size_t created_length = 0;
};

HookStates receive_hook_states(int sync, ChildBuffers& buffers) noexcept {
    step(sync, "sync", send_message(sync, SyncType::hooks_request));
    auto done = receive_message(sync, nullptr, buffers.state_json.data(), buffers.state_json.size());
    if (!done || done->type != SyncType::hooks_done) ::_exit(1);
    HookStates states;
    states.creating = buffers.state_json.data();
    states.creating_length = ::strnlen(states.creating, done->payload_length);
    states.created = states.creating + states.creating_length + 1;
    states.created_length = done->payload_length - states.creating_length - 1;
    return states;
}

// The pty's slave is bound over /dev/console (runtime-spec config.md "process.terminal") before it becomes
// our controlling terminal and fds 0-2.
Result<void> setup_console(const ContainerPlan& plan, int sync) noexcept {
    int slave = TRY(steps::open_pty(plan.workload, sync));
    TRY(mnt::apply_console(plan.rootfs, slave));
    return steps::attach_terminal(slave);
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

// What init adds to the shared credentials and confinement step: the output pump, husk-init's report pipe
// (kept open across execveat), --die-with-parent.
steps::ConfinementFds confinement_fds(const ContainerPlan& plan, const ChildFds& fds) noexcept {
    return steps::ConfinementFds{fds.stdout_pipe, fds.stderr_pipe, plan.init_report_write.get(), fds.parent_death_signal};
}

// A failing startContainer hook: the workload is not executed (runtime.md "Lifecycle").
void run_start_container_hooks(const ContainerPlan& plan, const HookStates& states, int sync, int exec_fifo,
                               const steps::Confined& confined) noexcept {
    if (auto r = hooks::apply_child_hooks(plan.start_container_hooks, states.created, states.created_length); !r) {
        Error e = r.error();
        steps::die_not_executed(sync, confined.filter, e.context("startContainer hook"), exec_fifo);
    }
}

// With run.husk.init, husk-init from its sealed memfd runs the program as its child (the lookup before created
// still refuses a program that is not there). Every signal is blocked first, and stays blocked across
// execveat until husk-init waits for them: `start` returns once we exec, and a `husk kill` right then would
// otherwise meet pid 1 without a handler, where the kernel drops it (pid_namespaces(7)). Blocked, it waits to
// be forwarded. Returns only when that failed (not [[noreturn]]: steps::exec_workload says why).
Error exec_husk_init(const ContainerPlan& plan) noexcept {
    sigset_t all;
    ::sigfillset(&all);
    if (::sigprocmask(SIG_SETMASK, &all, nullptr) != 0) return Error::sys(errno, "sigprocmask", "husk-init");
    ::execveat(plan.init.get(), "", plan.init_argv.data(), plan.workload.envp.data(), AT_EMPTY_PATH);
    return Error::sys(errno, "exec", "husk-init");
}

}  // namespace

[[noreturn]] void child_main(const ContainerPlan& plan, ChildFds fds, ChildBuffers& buffers) noexcept {
    const int sync = fds.sync;

    // 0. Drop the parent's fds that must not stay open in init; then wait while the parent writes
    //    uid_map/gid_map and oom_score_adj.
    close_parent_fds(fds.close_first);
    wait_for_go(sync);
    // Under HUSK_TRACE only: the filter loaded below may deny getpid.
    const int traced = trace::enabled() ? ::getpid() : 0;
    trace::mark("init: go", traced);

    // 1. Join namespaces given by path; user first (config-linux.md "Namespaces").
    step(sync, "namespaces", ns::apply_namespaces(plan.namespaces));
    // 2. The rootfs held (and "/"'s propagation set) while our ids are still our parent's: the container's ids
    //    may not be able to search the directories above it. A new session, so a console can become our
    //    controlling terminal; root inside a user namespace.
    UniqueFd held_rootfs = step(sync, "rootfs", mnt::hold_rootfs(plan.rootfs));
    steps::start_session();
    if ((plan.namespaces.new_user && plan.namespaces.root_mapped) || plan.namespaces.join_user)
        step(sync, "user namespace", steps::become_root_in_user_ns());
    // 3. hostname and domainname (config.md "Hostname", "Domainname"), loopback up in a new netns.
    step(sync, "uts names", ns::apply_uts(plan.uts));
    if (plan.namespaces.new_net) step(sync, "loopback", net::apply_loopback_up(plan.loopback));
    trace::mark("init: namespaces, hostname, loopback", traced);
    // 4. Mounts: propagation, rootfs bind, config.md "Mounts" in order, /dev, linux.devices.
    UniqueFd root =
        step(sync, "rootfs", mnt::apply_mounts(plan.rootfs, held_rootfs.get(), mnt::TreeSource{request_bind_tree, &sync}));
    trace::mark("init: mounts", traced);
    // 5. prestart + createRuntime hooks run in the parent now (runtime.md "Lifecycle" steps 5-6); we get the
    //    state JSON for our own hooks back, then run createContainer hooks before pivot_root. No hooks: no
    //    round trip.
    const HookStates states = plan.setup_hooks ? receive_hook_states(sync, buffers) : HookStates{};
    step(sync, "createContainer hook",
         hooks::apply_child_hooks(plan.create_container_hooks, states.creating, states.creating_length));
    // 6. pivot_root (or MS_MOVE + chroot with --no-pivot). Before it, while the host's /proc is ours (the container
    //    may mount none): our status file, read at the end for the verified posture, and the AppArmor profile the
    //    kernel puts us under at execve (apparmor(7), as runc: the hooks above ran outside it).
    const int status_fd = steps::open_own_status(sync);
    step(sync, "apparmor", apparmor::apply_apparmor(plan.confinement.apparmor));
    step(sync, "pivot root", mnt::apply_pivot(plan.rootfs, root.get()));
    held_rootfs.reset();  // the host's directory under the new root: nothing of the host stays open
    root.reset();
    trace::mark("init: pivot_root", traced);
    // 7. The console comes after the user's mounts and before the rootfs is made read-only.
    if (plan.workload.terminal) step(sync, "console", setup_console(plan, sync));
    // 8. sysctl through the container's own /proc (config-linux.md "Sysctl").
    step(sync, "sysctl", sysctl::apply_sysctl(plan.sysctl));
    // 9. readonlyPaths, maskedPaths, read-only root (runc's order).
    step(sync, "rootfs", mnt::apply_finalize(plan.rootfs));
    trace::mark("init: masks, read-only paths", traced);
    // 10. rlimits while we still hold CAP_SYS_RESOURCE.
    step(sync, "rlimits", rlimit::apply_rlimits(plan.rlimits));
    // 11. cwd, inside the new root.
    step(sync, "cwd", steps::enter_cwd(plan.workload));
    // 12-15. docs/security.md's order: bounding set, ids, capabilities, umask, the parent-death signal (after the
    //     last credential change, which would clear it), no_new_privs; the executable, the output pump's pipes,
    //     the fd seal (husk-init's report pipe stays open); Landlock, then seccomp. Without no_new_privs 13-15
    //     come first (child_steps.cpp).
    const steps::Confined confined = steps::apply_credentials_and_confinement(
        sync, plan.credentials, plan.workload, plan.confinement, confinement_fds(plan, fds));
    trace::mark("init: credentials, confinement", traced);
    // 16. The verified posture, then created: wait until `husk start` writes to the exec fifo.
    confined_step(sync, confined.filter, "posture", steps::report_posture(sync, status_fd, confined.landlock_abi));
    confined_step(sync, confined.filter, "sync", write_message(sync, SyncType::created));
    confined_step(sync, confined.filter, "start", wait_for_start(fds.exec_fifo));
    trace::mark("init: started", traced);
    // 17. startContainer hooks, then the workload (or husk-init). `husk start` waits until we let go of exec.fifo
    //     (it is close-on-exec); a byte written back first tells it the workload was not executed.
    run_start_container_hooks(plan, states, sync, fds.exec_fifo, confined);
    trace::mark("init: exec", traced);
    const Error not_executed = plan.init ? exec_husk_init(plan) : steps::exec_workload(confined, plan.workload);
    steps::die_not_executed(sync, confined.filter, not_executed, fds.exec_fifo);
}

}  // namespace husk::process
