// The parent's side of `husk exec`: the plan from the stored config and the exec's process, then clone3 into
// the container's pid (and time) namespace and cgroup, and the sync steps until the process has exec'd.
#include <fcntl.h>
#include <linux/sched.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <cerrno>
#include <csignal>
#include <cstring>

#include "base/fs.hpp"
#include "base/procfs.hpp"
#include "base/sys.hpp"
#include "process/exec_main.hpp"
#include "process/spawn.hpp"
#include "process/sync.hpp"

namespace husk::process {
namespace {

// The pidfd stays readable-free while init lives (pidfd_open(2)): then everything opened through its pid
// since it was verified belongs to it, not to a process that got the pid after it.
Result<void> check_still_alive(int pidfd) {
    pollfd exited{pidfd, POLLIN, 0};
    if (::poll(&exited, 1, 0) != 0) return fail_msg("cannot exec in a stopped container");
    return {};
}

// Reaps the child after it failed or when we give up on it (SIGKILL first: it may be waiting for `go`).
void abandon(const ExecSpawned& child) {
    sys::pidfd_send_signal(child.pidfd.get(), SIGKILL);
    siginfo_t info{};
    ::waitid(P_PIDFD, static_cast<id_t>(child.pidfd.get()), &info, WEXITED);
}

// Until EOF (execve succeeded: the socket is close-on-exec) or the child's error.
Result<void> drive_exec(const ExecProcessPlan& plan, ExecSpawned& child, int sync, const ExecSpawnOptions& options) {
    bool posture_seen = false;
    for (;;) {
        UniqueFd fd;
        char payload[sizeof(Posture) + 1];  // receive_message keeps room for a NUL
        auto message = receive_message(sync, &fd, payload, sizeof payload);
        if (!message) {
            if (message.error().err != EPIPE) return std::unexpected(message.error());
            if (!posture_seen) return fail_msg("the exec'd process exited during setup");
            return {};
        }
        switch (message->type) {
            case SyncType::console:
                TRY(deliver_console(std::move(fd), options.console_target, options.console_socket, child.console));
                break;
            case SyncType::seccomp_listener:
                TRY(forward_listener(plan.confinement.seccomp, child.pid, options.state_json, fd.get()));
                break;
            case SyncType::posture: {
                if (message->payload_length != sizeof(Posture)) return fail_sys(EPROTO, "sync receive", "posture");
                std::memcpy(&child.posture, payload, sizeof child.posture);
                TRY(check_posture(child.posture, plan.confinement.expected));
                posture_seen = true;
                // config.md "oomScoreAdj": set when given, else inherited (as for init, spawn.cpp).
                if (plan.oom_score_adj) {
                    UniqueFd proc = TRY(open_proc_pid(child.pid));
                    auto r = write_proc_file(proc.get(), "oom_score_adj", std::to_string(*plan.oom_score_adj));
                    if (!r) return fail(r.error().context("process.oomScoreAdj"));
                }
                TRY(send_message(sync, SyncType::go));
                break;
            }
            case SyncType::error:
            case SyncType::exec_failed:
                return fail(message->error);
            default:
                return fail_sys(EPROTO, "sync receive");
        }
    }
}

}  // namespace

Result<ExecProcessPlan> prepare_exec_process(const spec::Spec& spec, int init_pidfd, pid_t init, int preserve_fds,
                                             bool seccomp_skip_unknown, bool rootless) {
    // One member at a time (see prepare_container: no TRY inside an aggregate initializer).
    ExecProcessPlan plan;
    plan.init_pidfd = init_pidfd;
    plan.namespaces = TRY(ns::open_init_namespaces(init, rootless));
    UniqueFd proc = TRY(open_proc_pid(init));
    plan.init_root = TRY(open_fd_at(proc.get(), "root", O_PATH | O_DIRECTORY));
    TRY(check_still_alive(init_pidfd));
    plan.credentials = TRY(caps::prepare_credentials(*spec.process));
    plan.rlimits = TRY(rlimit::prepare_rlimits(*spec.process));
    plan.workload = TRY(prepare_workload(spec, preserve_fds));
    plan.confinement = TRY(prepare_confinement(spec, seccomp_skip_unknown, plan.credentials));
    plan.oom_score_adj = spec.process->oom_score_adj;
    return plan;
}

Result<ExecSpawned> spawn_exec(const ExecProcessPlan& plan, const ExecSpawnOptions& options) {
    int pair[2];
    if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) != 0) return fail_sys(errno, "socketpair");
    UniqueFd parent_end(pair[0]), child_end(pair[1]);

    TRY(ns::join_init_user_namespace(plan.namespaces));
    auto for_children = TRY(ns::ForChildren::enter(plan.namespaces.for_children));
    int pidfd = -1;
    clone_args args{};
    args.flags = CLONE_PIDFD;
    args.pidfd = reinterpret_cast<std::uint64_t>(&pidfd);
    args.exit_signal = SIGCHLD;
    if (options.cgroup_fd >= 0) {
        args.flags |= CLONE_INTO_CGROUP;
        args.cgroup = static_cast<std::uint64_t>(options.cgroup_fd);
    }
    long pid = sys::clone3(&args);
    if (pid == 0) exec_main(plan, child_end.get(), parent_end.get());
    int clone_errno = errno;
    if (plan.namespaces.spawner_user) for_children.stay();
    auto restored = for_children.restore();
    if (pid < 0) return fail_sys(clone_errno, "clone3", "exec process");
    ExecSpawned child{static_cast<pid_t>(pid), UniqueFd(pidfd), {}, {}};
    child_end.reset();
    auto driven = restored ? drive_exec(plan, child, parent_end.get(), options) : std::unexpected(restored.error());
    if (!driven) {
        abandon(child);
        return std::unexpected(driven.error());
    }
    return child;
}

}  // namespace husk::process
