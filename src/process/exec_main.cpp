// The exec recipe: a process joining a running container, from clone3 to execve (runc's setns init beside
// its standard init, child_main here). The container is already built: no mounts, no hooks, no id maps;
// the process enters init's namespaces and root, then takes the same security steps in the same order as
// init did. System calls only: no allocation, no exceptions, no logging
// (docs/design.md, "Prepare in the parent, apply in the child").
#include "process/exec_main.hpp"

#include <sys/prctl.h>
#include <unistd.h>

#include "process/child_steps.hpp"
#include "process/sync.hpp"

namespace husk::process {
namespace {

using steps::check;
using steps::confined_step;
using steps::step;

// Not dumpable before anything else: once we are in the container's pid namespace its processes must not
// ptrace us or open /proc/<pid>/fd, /proc/<pid>/exe of a process that still holds husk's fds and runs husk's
// binary (CVE-2019-5736, CVE-2016-9962). execve makes the workload dumpable again (prctl(2) PR_SET_DUMPABLE).
Result<void> make_undumpable() noexcept {
    return check(::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0), "prctl PR_SET_DUMPABLE");
}

// Every fd of the parent's we do not need: its end of the socket, so that EOF means the parent died; the
// container's cgroup directory and the console socket, which are host fds. Only 0-2, the preserved fds, the
// socket, init's pidfd and root stay.
Result<void> close_parent_fds(const ExecProcessPlan& plan, int sync, int parent_end) noexcept {
    ::close(parent_end);
    const int keep[] = {sync, plan.init_pidfd, plan.init_root.get()};
    return steps::close_fds_except(3u + static_cast<unsigned>(plan.workload.preserve_fds), keep, 3);
}

// Joining the mount namespace gives init's root mount, which is not the container's root after --no-pivot's
// chroot; init's root directory is right in both cases.
Result<void> enter_init_root(const ExecProcessPlan& plan) noexcept {
    TRY(check(::fchdir(plan.init_root.get()), "fchdir", "container root"));
    return check(::chroot("."), "chroot", "container root");
}

// A pty of the container's devpts, the master to --console-socket, the slave our controlling terminal and
// 0-2 (config.md "process.terminal").
Result<void> setup_console(const ExecProcessPlan& plan, int sync) noexcept {
    int slave = TRY(steps::open_pty(plan.workload, sync));
    return steps::attach_terminal(slave);
}

// The parent checks the posture and answers `go` (EOF: it failed or died, never exec). read(2) only: the
// filter is loaded (docs/security.md, "Order in the container's init").
void wait_for_go(int sync) noexcept {
    char go = 0;
    if (::read(sync, &go, 1) != 1) ::_exit(1);
}

}  // namespace

[[noreturn]] void exec_main(const ExecProcessPlan& plan, int sync, int parent_end) noexcept {
    // 0. Not dumpable before anything else, then close every fd of the parent's we do not need, then, in the host's
    //    /proc (the container may mount no /proc, or mask it): our own status file, read at the end for the verified
    //    posture, and the AppArmor profile the kernel puts us under at execve (apparmor(7)).
    step(sync, "dumpable", make_undumpable());
    step(sync, "fds", close_parent_fds(plan, sync, parent_end));
    const int status_fd = steps::open_own_status(sync);
    step(sync, "apparmor", apparmor::apply_apparmor(plan.confinement.apparmor));
    // 1. init's namespaces, all at once through its pidfd (setns(2): user first), only those that differ
    //    from ours. Our pid and time namespaces were chosen by the parent at clone3.
    step(sync, "namespaces", ns::apply_init_namespaces(plan.namespaces, plan.init_pidfd));
    // 2. init's root (after its pivot_root or --no-pivot's chroot).
    step(sync, "root", enter_init_root(plan));
    // 3. A new session, as every process a runtime starts gets (and the one that may own a terminal).
    steps::start_session();
    // 4. The console (config.md "process.terminal").
    if (plan.workload.terminal) step(sync, "console", setup_console(plan, sync));
    // 5. rlimits while we still hold CAP_SYS_RESOURCE.
    step(sync, "rlimits", rlimit::apply_rlimits(plan.rlimits));
    // 6. cwd, which must be reachable from the container's root (CVE-2024-21626).
    step(sync, "cwd", steps::enter_cwd(plan.workload));
    // 7. docs/security.md's order, as child_main: bounding set, ids, capabilities, umask, no_new_privs, then the
    //    executable, the fd seal (only 0-2 and --preserve-fds stay open: CVE-2024-21626), Landlock, seccomp.
    //    Without no_new_privs the filter needs CAP_SYS_ADMIN, so the last steps come first then.
    const steps::Confined confined = steps::apply_credentials_and_confinement(
        sync, plan.credentials, plan.workload, plan.confinement, steps::ConfinementFds{});
    // 8. The verified posture; the parent checks it and answers `go`.
    confined_step(sync, confined.filter, "posture", steps::report_posture(sync, status_fd, confined.landlock_abi));
    wait_for_go(sync);
    // 9. The workload. The sync socket is close-on-exec: its EOF tells the parent execve succeeded.
    steps::die_not_executed(sync, confined.filter, steps::exec_workload(confined, plan.workload), -1);
}

}  // namespace husk::process
