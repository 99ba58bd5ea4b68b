// The exec recipe: a process joining a running container, from clone3 to execve (runc's setns init beside
// its standard init, child_main here). The container is already built: no mounts, no hooks, no id maps;
// the process enters init's namespaces and root, then takes the same security steps in the same order as
// init did. System calls only: no allocation, no exceptions, no logging
// (docs/design.md, "Prepare in the parent, apply in the child").
#include "process/exec_main.hpp"

#include <fcntl.h>
#include <sched.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>

#include "process/child_steps.hpp"
#include "process/sync.hpp"

namespace husk::process {

using steps::check;
using steps::confined_step;
using steps::step;

[[noreturn]] void exec_main(const ExecProcessPlan& plan, int sync, int parent_end) noexcept {
    const WorkloadPlan& workload = plan.workload;
    const Confinement& confinement = plan.confinement;

    // 0. Not dumpable before anything else: once we are in the container's pid namespace its processes must
    //    not ptrace us or open /proc/<pid>/fd, /proc/<pid>/exe of a process that still holds husk's fds and
    //    runs husk's binary (CVE-2019-5736, CVE-2016-9962). execve makes the workload dumpable again.
    //    Then close every fd of the parent's we do not need (its end of the socket, so that EOF means the
    //    parent died; the container's cgroup directory and the console socket, which are host fds): only
    //    0-2, the preserved fds, the socket, init's pidfd and root stay.
    step(sync, "dumpable", check(::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0), "prctl PR_SET_DUMPABLE"));
    ::close(parent_end);
    const int keep[] = {sync, plan.init_pidfd, plan.init_root.get()};
    step(sync, "fds", steps::close_fds_except(3u + static_cast<unsigned>(workload.preserve_fds), keep, 3));
    // Our own status file in the host's /proc, read at the end for the verified posture (the container may
    // mount no /proc, or mask it).
    const int status_fd = ::open("/proc/self/status", O_RDONLY | O_CLOEXEC);
    if (status_fd < 0) step(sync, "posture", check(-1, "open", "/proc/self/status"));

    // 1. init's namespaces, all at once through its pidfd (setns(2): user first), only those that differ
    //    from ours. Our pid and time namespaces were chosen by the parent at clone3.
    if (plan.namespaces.setns_flags != 0)
        step(sync, "namespaces", check(::setns(plan.init_pidfd, plan.namespaces.setns_flags), "setns", "container init"));
    // 2. init's root: joining the mount namespace gives its root mount, which is not the container's root
    //    after --no-pivot's chroot; init's root directory is right in both cases.
    step(sync, "root", check(::fchdir(plan.init_root.get()), "fchdir", "container root"));
    step(sync, "root", check(::chroot("."), "chroot", "container root"));
    // 3. A new session, as every process a runtime starts gets (and the one that may own a terminal).
    ::setsid();
    // 4. The console: a pty of the container's devpts, the master to --console-socket, the slave our
    //    controlling terminal and 0-2 (config.md "process.terminal").
    if (workload.terminal) {
        auto slave = steps::open_pty(workload, sync);
        if (!slave) step(sync, "console", std::unexpected(slave.error()));
        step(sync, "console", steps::attach_terminal(*slave));
    }
    // 5. rlimits while we still hold CAP_SYS_RESOURCE.
    step(sync, "rlimits", rlimit::apply_rlimits(plan.rlimits));
    // 6. cwd, which must be reachable from the container's root (CVE-2024-21626).
    step(sync, "cwd", steps::enter_cwd(workload));
    // 7. docs/security.md's order, as child_main: bounding set, ids, capabilities, umask, no_new_privs, then the
    //    executable, the fd seal (only 0-2 and --preserve-fds stay open: CVE-2024-21626), Landlock, seccomp.
    //    Without no_new_privs the filter needs CAP_SYS_ADMIN, so the last steps come first then.
    int landlock_abi = 0;
    const char* executable = nullptr;
    const seccomp::SeccompPlan* filter = nullptr;
    const seccomp::SeccompPlan* seccomp = confinement.seccomp ? &*confinement.seccomp : nullptr;
    if (!workload.no_new_privileges) {
        executable = steps::prepare_for_exec(workload, -1, -1, sync);
        step(sync, "security", steps::confine(confinement.landlock, seccomp, sync, landlock_abi));
        filter = seccomp;
    }
    steps::apply_credentials(sync, filter, plan.credentials);
    if (workload.no_new_privileges) {
        step(sync, "noNewPrivileges", check(::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "prctl PR_SET_NO_NEW_PRIVS"));
        executable = steps::prepare_for_exec(workload, -1, -1, sync);
        step(sync, "security", steps::confine(confinement.landlock, seccomp, sync, landlock_abi));
        filter = seccomp;
    }
    // 8. The verified posture; the parent checks it and answers `go` (EOF: it failed or died, never exec).
    confined_step(sync, filter, "posture", steps::report_posture(sync, status_fd, landlock_abi));
    char go = 0;
    if (::read(sync, &go, 1) != 1) ::_exit(1);
    // 9. The workload. The sync socket is close-on-exec: its EOF tells the parent execve succeeded.
    ::execve(executable, workload.argv.data(), workload.envp.data());
    steps::die_confined(sync, filter, Error::sys(errno, "exec", executable), SyncType::exec_failed);
}

}  // namespace husk::process
