// Create for a caller that is the monitor itself (container/hosted.hpp): run_foreground's first half, without
// the foreground's signal forwarding and terminal relay, which a shim does its own way.
#include "container/hosted.hpp"

#include <unistd.h>

#include <memory>

#include "container/launch.hpp"
#include "monitor/limits.hpp"
#include "monitor/monitor_process.hpp"
#include "monitor/record.hpp"
#include "monitor/verdict.hpp"

namespace husk::container {

Result<HostedInit> create_hosted(const Runtime& runtime, const ContainerId& id, const CreateOptions& options) {
    auto launch = TRY(prepare_launch(runtime, id, options, PtyRelay::offered));
    // The shim outlives whoever started it (containerd daemonizes it): there is no caller to watch.
    if (launch->caller) return fail_msg("run.husk.die-with-parent: not supported by husk's containerd shim (its parent is not the client)");
    launch->spawn_attempted = true;
    auto spawned = TRY(process::spawn_init(launch->plan, *launch->buffers, spawn_options(*launch, process::Parent::spawner)));
    if (auto recorded = record_created(*launch, spawned.pid, ::getpid(), options.pid_file,
                                       spawned.posture.value_or(process::Posture{}));
        !recorded) {
        monitor::kill_init(spawned.pid);
        return std::unexpected(recorded.error());
    }
    launch->commit();
    HostedInit init(monitor_plan(*launch));
    init.pid = spawned.pid;
    std::optional<monitor::OutputPlumbing> output = std::move(launch->output);
    launch.reset();  // releases the create lock so start can take it
    init.pidfd = std::move(spawned.pidfd);
    init.console = std::move(spawned.console);
    init.sync = std::move(spawned.sync);
    init.init_report = std::move(spawned.init_report);
    init.wait.role = monitor::Role::parent;
    init.wait.pid = init.pid;
    init.wait.sync = init.sync.get();
    init.wait.init_report = init.init_report.get();
    monitor::add_limits(init.plan, init.pid, init.pidfd.get(), std::move(output), init.wait);
    return init;
}

HostedExit record_hosted_exit(const HostedInit& init, const monitor::ExitStatus& status) {
    HostedExit exit;
    exit.record = monitor::record_exit(init.plan, init.pid, status);
    state::ExitRecord decided = exit.record && exit.record->exit
                                    ? *exit.record->exit
                                    : monitor::decide_exit(status, state::Record{}, init.plan.policy);
    exit.exit_code = monitor::run_exit_status(decided);
    return exit;
}

}  // namespace husk::container
