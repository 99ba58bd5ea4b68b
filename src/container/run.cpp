// husk run: create + start (+ wait). In the foreground husk itself is init's parent and monitor: it forwards
// signals, relays its terminal to the container's (process.terminal without --console-socket), reaps init,
// records the exit and mirrors its status; with --detach it is create + start.
#include <unistd.h>

#include <csignal>

#include "container/launch.hpp"
#include "monitor/limits.hpp"
#include "monitor/monitor_process.hpp"
#include "monitor/record.hpp"
#include "monitor/terminal_relay.hpp"
#include "monitor/verdict.hpp"
#include "husk/container.hpp"

namespace husk {

Result<RunOutcome> run_container(const Runtime& runtime, const RunOptions& options) {
    RunOutcome outcome;
    if (options.detach) {
        TRY(create_container(runtime, options.create));
        auto started = start_container(runtime, options.create.id);
        if (!started) {
            (void)delete_container(runtime, options.create.id, true);
            return std::unexpected(started.error());
        }
        outcome.warnings = std::move(*started);
        return outcome;
    }
    {
        // process.terminal without --console-socket: husk keeps the pty master and relays its own terminal.
        auto launch = TRY(container::prepare_launch(runtime, options.create, container::PtyRelay::offered));
        launch->spawn_attempted = true;
        auto spawned = TRY(process::spawn_init(launch->plan, *launch->buffers,
                                               container::spawn_options(*launch, process::Parent::spawner)));
        if (auto recorded = container::record_created(*launch, spawned.pid, ::getpid(), options.create.pid_file,
                                                          spawned.posture.value_or(process::Posture{})); !recorded) {
            monitor::kill_init(spawned.pid);
            return std::unexpected(recorded.error());
        }
        launch->commit();
        monitor::MonitorPlan plan = container::monitor_plan(*launch);
        std::optional<monitor::OutputPlumbing> output = std::move(launch->output);
        const bool relay_terminal = launch->relay_terminal;
        launch.reset();  // releases the create lock so start can take it

        // Signals a terminal or a supervisor sends to `husk run` go to the container, as with runc.
        monitor::WaitOptions wait;
        wait.role = monitor::Role::parent;
        wait.sync = spawned.sync.get();
        sigset_t forward;
        sigemptyset(&forward);
        for (int sig : {SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGWINCH, SIGCONT})
            sigaddset(&forward, sig);
        wait.forward = forward;
        monitor::add_limits(plan, spawned.pid, spawned.pidfd.get(), std::move(output), wait);
        // SIGWINCH then resizes the pty instead of being forwarded (monitor/terminal_relay.hpp).
        if (relay_terminal) monitor::add_terminal_relay(std::move(spawned.console), wait);

        auto started = start_container(runtime, options.create.id);
        if (!started) {
            monitor::kill_init(spawned.pid);
            monitor::WaitOptions reap;
            (void)monitor::wait_for_exit(spawned.pidfd.get(), reap);
            (void)delete_container(runtime, options.create.id, true);
            return std::unexpected(started.error());
        }
        outcome.warnings = std::move(*started);
        auto status = monitor::wait_for_exit(spawned.pidfd.get(), wait);
        monitor::ExitStatus exit = status ? *status : monitor::ExitStatus{};
        // The status mirrors the verdict, so the two never disagree: a limit that fired never ends in 0.
        // Without a written record (deleted meanwhile), the verdict from the monitor's own facts.
        auto verdict = monitor::record_exit(plan, spawned.pid, exit);
        outcome.exit_code = monitor::run_exit_status(
            verdict ? *verdict : monitor::decide_exit(exit, state::Record{}, plan.policy));
        outcome.failure = exit.exec_error;
    }
    if (!options.keep) {
        auto deleted = delete_container(runtime, options.create.id, true);
        if (!deleted) return std::unexpected(deleted.error());
        outcome.warnings.insert(outcome.warnings.end(), deleted->begin(), deleted->end());
    }
    return outcome;
}

}  // namespace husk
