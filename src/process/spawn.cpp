#include "process/spawn.hpp"

#include <fcntl.h>
#include <linux/sched.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <cerrno>
#include <cstring>
#include <csignal>
#include <string>

#include "base/fs.hpp"
#include "base/procfs.hpp"
#include "base/send_fd.hpp"
#include "base/sys.hpp"
#include "base/trace.hpp"
#include "hooks/hooks.hpp"
#include "process/child_main.hpp"
#include "process/sync.hpp"
#include "seccomp/notify.hpp"

namespace husk::process {
namespace {

// init closed the sync socket without a word: it exited. When we are its parent and a seccomp filter's kill
// or trap action ended it (SIGSYS), say so rather than leave "exited" unexplained: the profile denies one of
// the calls init makes after loading it.
Error early_exit(const ContainerPlan& plan, const Spawned& child, const SpawnOptions& options) {
    Error generic = Error::msg("container init exited during setup");
    if (options.parent != Parent::spawner || !plan.confinement.seccomp) return generic;
    // Its socket closes a moment before it becomes a zombie: wait for that (the pidfd polls readable then),
    // bounded, since a peer that is not gone must not hang create.
    pollfd exited{child.pidfd.get(), POLLIN, 0};
    if (::poll(&exited, 1, 1000) != 1) return generic;
    siginfo_t info{};
    if (::waitid(P_PIDFD, static_cast<id_t>(child.pidfd.get()), &info, WEXITED | WNOHANG | WNOWAIT) != 0)
        return generic;
    if (info.si_code != CLD_KILLED && info.si_code != CLD_DUMPED) return generic;
    if (info.si_status != SIGSYS) return generic;
    return Error::msg("container init was killed by SIGSYS during setup: linux.seccomp kills or traps a call init "
                      "makes after loading it (read, write, close, execve; docs/security.md)");
}

// Runs the parent-side steps the child asks for until it reports `created` (or fails).
Result<void> drive_setup(const ContainerPlan& plan, Spawned& child, int sync, const SpawnOptions& options) {
    for (;;) {
        UniqueFd fd;
        char payload[sizeof(Posture) + 1];  // receive_message keeps room for a NUL
        auto message = receive_message(sync, &fd, payload, sizeof payload);
        if (!message) return fail(early_exit(plan, child, options));
        switch (message->type) {
            case SyncType::hooks_request: {
                trace::mark("hooks");
                std::string creating = options.hook_state("creating", child.pid);
                if (options.hooks != nullptr) {
                    TRY(hooks::run_hooks(options.hooks->prestart, creating, "prestart", hooks::OnFailure::fail));
                    TRY(hooks::run_hooks(options.hooks->create_runtime, creating, "createRuntime", hooks::OnFailure::fail));
                }
                // The child's own hooks get the state too: createContainer sees "creating", startContainer
                // "created". Both travel in one payload, separated by a NUL.
                std::string both = creating + '\0' + options.hook_state("created", child.pid);
                if (both.size() >= sizeof(ChildBuffers::state_json))
                    return fail_msg("the container state for createContainer/startContainer hooks is " +
                                    std::to_string(both.size()) + " bytes, more than husk passes (" +
                                    std::to_string(sizeof(ChildBuffers::state_json) - 1) + "): fewer annotations?");
                TRY(send_message(sync, SyncType::hooks_done, nullptr, -1, both.data(), both.size()));
                trace::mark("hooks done");
                break;
            }
            case SyncType::bind_tree: {
                // The bind the child attaches next, cloned now so its mount id follows config order.
                std::uint32_t index = 0;
                if (message->payload_length != sizeof index) return fail_sys(EPROTO, "sync receive", "bind_tree");
                std::memcpy(&index, payload, sizeof index);
                UniqueFd tree = TRY(mnt::clone_bind_source(plan.rootfs, index));
                TRY(send_message(sync, SyncType::bind_tree, nullptr, tree.get()));
                break;
            }
            case SyncType::console:
                TRY(deliver_console(std::move(fd), options.console_target, options.console_socket, child.console));
                break;
            case SyncType::seccomp_listener:
                // The state says "creating", as for the hooks that run now.
                TRY(forward_listener(plan.confinement.seccomp, child.pid, options.hook_state("creating", child.pid), fd.get()));
                break;
            case SyncType::posture: {
                if (message->payload_length != sizeof(Posture)) return fail_sys(EPROTO, "sync receive", "posture");
                Posture posture;
                std::memcpy(&posture, payload, sizeof posture);
                TRY(check_posture(posture, plan.confinement.expected));
                child.posture = posture;
                break;
            }
            case SyncType::created:
                trace::mark("created");
                if (!child.posture) return fail_msg("container init did not report its security posture");
                return {};
            case SyncType::error:
            case SyncType::exec_failed:
                return fail(message->error);
            default:
                return fail_sys(EPROTO, "sync receive");
        }
    }
}

void abandon(const Spawned& child, const SpawnOptions& options) {
    sys::pidfd_send_signal(child.pidfd.get(), SIGKILL);
    if (options.parent == Parent::spawner) {
        siginfo_t info{};
        ::waitid(P_PIDFD, static_cast<id_t>(child.pidfd.get()), &info, WEXITED);
    }
}

}  // namespace

Result<void> deliver_console(UniqueFd master, ConsoleTarget target, int console_socket, UniqueFd& kept) {
    if (!master) return fail_sys(EPROTO, "sync receive", "console without its pty master");
    if (target == ConsoleTarget::spawner) {
        kept = std::move(master);
        return {};
    }
    if (console_socket < 0) return fail_msg("process.terminal is true but no --console-socket was given");
    // runc sends the name "/dev/ptmx" with the master.
    static constexpr char name[] = "/dev/ptmx";
    if (auto sent = send_with_fd(console_socket, name, sizeof name - 1, master.get()); !sent)
        return fail_sys(sent.error().err, "send to console socket");
    return {};
}

Result<void> forward_listener(const std::optional<seccomp::SeccompPlan>& filter, pid_t pid,
                              const std::string& state_json, int fd) {
    if (!filter || filter->listener_path.empty())
        return fail_msg("the container process sent a seccomp listener fd, but linux.seccomp has no listenerPath");
    std::string state =
        seccomp::container_process_state_json("1.3.0", pid, filter->listener_metadata, state_json).value_or("");
    if (state.empty()) return fail_msg("linux.seccomp.listenerPath: could not build the container process state");
    auto sent = seccomp::send_to_listener(filter->listener_path, fd, state);
    if (!sent) return fail(sent.error().context("linux.seccomp.listenerPath"));
    return {};
}

Result<Spawned> spawn_init(const ContainerPlan& plan, ChildBuffers& buffers, const SpawnOptions& options) {
    int pair[2];
    if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) != 0) return fail_sys(errno, "socketpair");
    UniqueFd parent_end(pair[0]), child_end(pair[1]);

    // init also drops our end of the socket: then its reads see EOF when we die, and it exits instead of
    // waiting forever for a parent that is gone.
    std::vector<int> close_first = options.close_in_child;
    close_first.push_back(parent_end.get());
    auto for_children = TRY(ns::ForChildren::enter(plan.namespaces));
    int pidfd = -1;
    clone_args args{};
    args.flags = plan.namespaces.clone_flags | CLONE_PIDFD;
    args.pidfd = reinterpret_cast<std::uint64_t>(&pidfd);
    // With CLONE_PARENT the kernel takes the exit signal from us and requires 0 here.
    args.exit_signal = options.parent == Parent::spawner ? SIGCHLD : 0;
    if (options.parent == Parent::spawners_parent) args.flags |= CLONE_PARENT;
    if (options.cgroup_fd >= 0) {
        args.flags |= CLONE_INTO_CGROUP;
        args.cgroup = static_cast<std::uint64_t>(options.cgroup_fd);
    }
    trace::mark("clone");
    long pid = sys::clone3(&args);
    if (pid == 0)
        child_main(plan, ChildFds{child_end.get(), options.exec_fifo, &close_first, options.stdout_pipe,
                                  options.stderr_pipe, options.parent_death_signal}, buffers);
    int clone_errno = errno;
    auto restored = for_children.restore();
    if (pid < 0) return fail_sys(clone_errno, "clone3", "container init");
    Spawned child{static_cast<pid_t>(pid), UniqueFd(pidfd), {}, {}, {}, {}};
    child_end.reset();
    trace::mark("cloned");
    if (!restored) {
        abandon(child, options);
        return std::unexpected(restored.error());
    }

    auto setup = [&]() -> Result<void> {
        if (options.on_cloned) TRY(options.on_cloned(child.pid));
        if (plan.init_report_read) {
            child.init_report.reset(::fcntl(plan.init_report_read.get(), F_DUPFD_CLOEXEC, 3));
            if (!child.init_report) return fail_sys(errno, "fcntl F_DUPFD_CLOEXEC", "husk-init report");
        }
        TRY(ns::write_id_maps(plan.namespaces, child.pid));
        if (options.oom_score_adj) {
            UniqueFd proc = TRY(open_proc_pid(child.pid));
            auto r = write_proc_file(proc.get(), "oom_score_adj", std::to_string(*options.oom_score_adj));
            if (!r) return fail(r.error().context("process.oomScoreAdj"));
        }
        TRY(send_message(parent_end.get(), SyncType::go));
        return drive_setup(plan, child, parent_end.get(), options);
    };
    if (auto r = setup(); !r) {
        abandon(child, options);
        return std::unexpected(r.error());
    }
    child.sync = std::move(parent_end);
    return child;
}

}  // namespace husk::process
