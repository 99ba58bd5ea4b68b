// husk exec: a new process in a running container. The record is read under the lock; init is verified
// (pid + start time + boot id, then again once its pidfd is open and after its namespaces are opened); the
// plan is built from the container's effective config; spawn_exec clones the process into the container's cgroup and
// namespaces. In the foreground husk waits for it and forwards signals; with --detach it returns once the
// process has exec'd, leaving it to our parent's subreaper (containerd's shim, conmon), as runc does.
#include <fcntl.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <csignal>
#include <string_view>

#include "base/fs.hpp"
#include "base/sys.hpp"
#include "cgroup/net_filter.hpp"
#include "container/config.hpp"
#include "container/exec_process.hpp"
#include "container/hosted.hpp"
#include "container/launch.hpp"
#include "container/observe.hpp"
#include "husk/container.hpp"
#include "frontend/terminal_relay.hpp"
#include "monitor/wait.hpp"
#include "process/exec_main.hpp"
#include "spec/validate.hpp"
#include "state/process_identity.hpp"

namespace husk {
namespace {

using container::Status;

// What exec needs of the container, read under the lock.
struct Target {
    state::Record record;
    container::ContainerConfig config;
    UniqueFd init_pidfd;
    UniqueFd cgroup;     // O_RDONLY dir fd for CLONE_INTO_CGROUP; empty with --cgroup-manager disabled
};

// runc's --cgroup for cgroup v2: a path below the container's cgroup, which must exist.
Result<UniqueFd> open_sub_cgroup(int container_cgroup, const std::string& sub) {
    if (sub.empty() || sub[0] == '/') return fail_msg("--cgroup " + sub + ": must be a path relative to the container's cgroup");
    std::string_view rest = sub;
    while (!rest.empty()) {
        std::string_view part = rest.substr(0, rest.find('/'));
        if (part == "..") return fail_msg("--cgroup " + sub + ": must not leave the container's cgroup (\"..\")");
        rest.remove_prefix(std::min(rest.size(), part.size() + 1));
    }
    auto fd = open_fd_at(container_cgroup, sub, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
    if (!fd) return fail(fd.error().context("--cgroup"));
    return fd;
}

Result<Target> open_target(const Runtime& runtime, const ContainerId& id, const ExecOptions& options) {
    auto dir = TRY(state::StateDir::open(runtime.root, id));
    TRY(dir.lock(state::Lock::shared));
    state::Record found = TRY(dir.read_record());
    std::optional<state::Record> record = found;
    switch (container::observe(dir, record).status) {
        case Status::created:
        case Status::running: break;
        case Status::paused:
            // The process would freeze in the container's cgroup at once; husk waits until it is resumed.
            if (!options.ignore_paused) return fail_msg("cannot exec in a paused container (use --ignore-paused to override)");
            break;
        case Status::creating: return fail_msg("cannot exec in a container that is still being created");
        case Status::stopped: return fail_msg("cannot exec in a stopped container");
    }
    auto pidfd = state::open_live_pidfd(found.pid, found.pid_start_time, found.boot_id);
    if (!pidfd) return fail_msg("cannot exec in a stopped container");
    container::ContainerConfig config = TRY(container::read_config(dir, found));
    Target target{std::move(found), std::move(config), std::move(*pidfd), UniqueFd()};
    if (const auto& cgroup = target.config.cgroup) {
        target.cgroup = TRY(open_fd(cgroup->where(), O_RDONLY | O_DIRECTORY));
        if (!options.cgroup.empty()) target.cgroup = TRY(open_sub_cgroup(target.cgroup.get(), options.cgroup));
    } else if (!options.cgroup.empty()) {
        return fail_msg("--cgroup: the container has no cgroup (created with --cgroup-manager disabled)");
    }
    return target;
}

// The caller's window size (stdin's, else stdout's) as the pty's first size, so the process never sees
// another one; the relay follows later changes (SIGWINCH).
void take_callers_size(spec::Process& process) {
    for (int fd : {0, 1}) {
        winsize size{};
        if (::ioctl(fd, TIOCGWINSZ, &size) != 0 || size.ws_row == 0 || size.ws_col == 0) continue;
        process.console_size = spec::ConsoleSize{size.ws_row, size.ws_col};
        return;
    }
}

// Foreground: signals a terminal or a supervisor sends to `husk exec` go to the process, as with runc; with
// the relay, husk's own terminal is the process's (SIGWINCH then resizes the pty instead).
Result<int> wait_in_foreground(process::ExecSpawned& child) {
    monitor::WaitOptions wait;
    wait.role = monitor::Role::parent;
    sigset_t forward;
    sigemptyset(&forward);
    for (int sig : {SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGWINCH, SIGCONT}) sigaddset(&forward, sig);
    wait.forward = forward;
    if (child.console) frontend::add_terminal_relay(std::move(child.console), wait);
    monitor::ExitStatus status = TRY(monitor::wait_for_exit(child.pidfd.get(), wait));
    return status.known ? status.code : 255;
}

}  // namespace

Result<ExecOutcome> exec_container(const Runtime& runtime, const ContainerId& id, const ExecOptions& options) {
    if (options.preserve_fds < 0) return fail_msg("--preserve-fds: must be 0 or more");
    TRY(check_preserved_fds(options.preserve_fds));  // first: before husk opens an fd of its own
    TRY(container::check_pid_file(options.pid_file));
    Target target = TRY(open_target(runtime, id, options));
    spec::Process process = TRY(container::exec_process(*target.config.spec.process, options));
    const auto route = TRY(container::terminal_route(process.terminal, options.detach, options.console_socket));
    if (route == container::TerminalRoute::relay) take_callers_size(process);
    // The effective config with the exec's process: the container's linux.seccomp and settings apply.
    spec::Spec spec = std::move(target.config.spec);
    spec.process = std::move(process);
    const spec::HuskSettings& husk = target.config.husk;
    // The container's network policy covers the exec'd process (it joins the cgroup) only if it cannot step
    // around the hooks (docs/network-policy.md).
    if (husk.net_allow || husk.net_ops) TRY(cgroup::check_net_policy_capabilities(*spec.process, "exec: process"));
    auto plan = TRY(process::prepare_exec_process(spec, target.init_pidfd.get(), target.record.pid, options.preserve_fds,
                                                  husk.seccomp_skip_unknown.value_or(false), runtime.rootless));
    container::warn_ambient_dropped(plan.credentials, options.warn);
    UniqueFd console;
    if (!options.console_socket.empty()) console = TRY(container::connect_console_socket(options.console_socket));
    process::ExecSpawnOptions spawn{target.cgroup.get(), console.get(),
                                    process::ConsoleTarget::socket,
                                    container::oci_state_json(target.record, "running", target.record.pid)};
    if (route == container::TerminalRoute::relay) spawn.console_target = process::ConsoleTarget::spawner;
    auto child = TRY(process::spawn_exec(plan, spawn));
    console.reset();
    if (auto written = container::write_pid_file(options.pid_file, child.pid); !written) {
        (void)sys::pidfd_send_signal(child.pidfd.get(), SIGKILL);
        return std::unexpected(written.error());
    }
    if (options.detach) return ExecOutcome{};
    return ExecOutcome{TRY(wait_in_foreground(child))};
}

namespace container {

Result<HostedExec> exec_hosted(const Runtime& runtime, const ContainerId& id, spec::Process process) {
    ExecOptions options;
    options.detach = true;
    Target target = TRY(open_target(runtime, id, options));
    spec::Spec spec = std::move(target.config.spec);
    spec.process = std::move(process);
    const spec::HuskSettings& husk = target.config.husk;
    if (husk.net_allow || husk.net_ops) TRY(cgroup::check_net_policy_capabilities(*spec.process, "exec: process"));
    auto plan = TRY(process::prepare_exec_process(spec, target.init_pidfd.get(), target.record.pid, 0,
                                                  husk.seccomp_skip_unknown.value_or(false), runtime.rootless));
    process::ExecSpawnOptions spawn{target.cgroup.get(), -1, process::ConsoleTarget::spawner,
                                    oci_state_json(target.record, "running", target.record.pid)};
    auto child = TRY(process::spawn_exec(plan, spawn));
    return HostedExec{child.pid, std::move(child.pidfd), std::move(child.console)};
}

}  // namespace container
}  // namespace husk
