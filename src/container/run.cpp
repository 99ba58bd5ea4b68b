// husk run: create + start (+ wait). In the foreground husk itself is init's parent and monitor: it forwards
// signals (a stop request cancels: the kill grace, then cgroup.kill), relays its terminal to the container's
// (process.terminal without --console-socket), reaps init, records the exit, mirrors its status and delivers the
// verdict (--verdict); with --detach it is create + start.
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <memory>

#include "base/time.hpp"
#include "base/trace.hpp"
#include "monitor/caller_watch.hpp"
#include "frontend/json_lines.hpp"
#include "container/launch.hpp"
#include "monitor/limits.hpp"
#include "monitor/monitor_process.hpp"
#include "monitor/record.hpp"
#include "monitor/signal_forwarder.hpp"
#include "frontend/terminal_relay.hpp"
#include "monitor/verdict.hpp"
#include "frontend/verdict_file.hpp"
#include "husk/container.hpp"

namespace husk {
namespace {

// What a foreground run learned on its way, for the verdict whatever the ending.
struct Progress {
    frontend::RunVerdict verdict;
    std::optional<std::chrono::steady_clock::time_point> begun;  // husk started the container: t = 0 of json
    bool prepared = false;  // the config was accepted: a failure from here on is `setup-failed`, not `refused`
    bool decided = false;   // the verdict holds the container's exit
};

// --output-format json: the output pumped and framed as JSON lines.
monitor::Framing framing_of(OutputFormat format) {
    return format == OutputFormat::json ? frontend::json_line_framing() : monitor::Framing{};
}

// The state dir removed under the run (rm -rf of --root): no record, and no delete will find the container. husk
// removes the cgroup it made itself (monitor/record.hpp) and says so, never calling the run a success. Nothing
// when the state dir is there.
std::optional<std::string> settle_lost_state(const Runtime& runtime, const ContainerId& id,
                                             const monitor::MonitorPlan& plan) {
    if (!monitor::state_dir_lost(plan)) return std::nullopt;
    auto removed = monitor::remove_lost_cgroup(plan);
    return "the container's state directory " + runtime.root + "/" + id.str() +
           " was removed while it ran, so its record is lost" +
           (removed ? std::string("; husk removed its cgroup")
                    : "; its cgroup could not be removed: " + removed.error().message());
}

Result<RunOutcome> run_foreground(const Runtime& runtime, const ContainerId& id, const RunOptions& options,
                                  Progress& progress) {
    RunOutcome outcome;
    // Signals a terminal or a supervisor sends to `husk run` go to the container, as with runc; a stop request
    // is a cancel husk enforces with the kill grace, as the wall-time limit does. Until the loop runs they wait.
    sigset_t forward;
    sigemptyset(&forward);
    for (int sig : {SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGWINCH, SIGCONT}) sigaddset(&forward, sig);
    monitor::defer_signals(forward);
    std::optional<monitor::MonitorPlan> lost_check;  // the monitor's plan, to settle a state dir lost under the run
    {
        // process.terminal without --console-socket: husk keeps the pty master and relays its own terminal.
        auto launch = TRY(container::prepare_launch(runtime, id, options.create, container::PtyRelay::offered,
                                                    framing_of(options.output_format)));
        progress.prepared = true;
        progress.verdict.policy = launch->policy;
        progress.verdict.settings = launch->bundle.config.husk;
        launch->record.monitor_deletes = !options.keep;  // husk gc's cue if husk is lost before it deletes
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
        lost_check = plan;
        std::optional<monitor::OutputPlumbing> output = std::move(launch->output);
        // Not a std::optional of its own: g++ 12 at -O3 then sees the moved-into payload's fd as maybe
        // uninitialized in the optional's destructor (GCC bug 80635, a false -Wmaybe-uninitialized).
        const bool watch_caller = launch->caller.has_value();
        monitor::Caller caller;
        if (watch_caller) caller = std::move(*launch->caller);
        const bool relay_terminal = launch->relay_terminal;
        launch.reset();  // releases the create lock so start can take it

        monitor::WaitOptions wait;
        wait.role = monitor::Role::parent;
        wait.sync = spawned.sync.get();
        wait.init_report = spawned.init_report.get();
        wait.forward = forward;
        auto enforcer = std::make_shared<const monitor::Enforcer>(plan, spawned.pid, spawned.pidfd.get());
        wait.cancel = monitor::Cancel{plan.policy.grace, [enforcer] { enforcer->kill(); }};
        if (watch_caller) {
            wait.watchers.push_back(monitor::watch_caller(std::move(caller), [enforcer] { enforcer->kill(); }));
        }
        // The wall time and json's t count from here, just before start.
        auto begun = std::chrono::steady_clock::now();
        progress.begun = begun;
        if (output) output->origin = begun;
        monitor::add_limits(plan, spawned.pid, spawned.pidfd.get(), std::move(output), wait);
        // SIGWINCH then resizes the pty instead of being forwarded (frontend/terminal_relay.hpp).
        if (relay_terminal) frontend::add_terminal_relay(std::move(spawned.console), wait);

        auto started = start_container(runtime, id);
        if (!started) {
            monitor::kill_init(spawned.pid);
            monitor::WaitOptions reap;
            (void)monitor::wait_for_exit(spawned.pidfd.get(), reap);
            (void)delete_container(runtime, id, true);
            if (auto lost = settle_lost_state(runtime, id, plan)) return fail_msg(*lost);
            return std::unexpected(started.error());
        }
        outcome.warnings = std::move(*started);
        trace::mark("started");
        auto status = monitor::wait_for_exit(spawned.pidfd.get(), wait);
        trace::mark("exited");
        monitor::ExitStatus exit = status ? *status : monitor::ExitStatus{};
        progress.verdict.wall_time =
            std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - begun);
        // The status mirrors the verdict, so the two never disagree: a limit that fired never ends in 0.
        // Without a written record (deleted meanwhile), the verdict from the monitor's own facts.
        auto record = monitor::record_exit(plan, spawned.pid, exit);
        progress.verdict.exit = record && record->exit ? *record->exit : monitor::decide_exit(exit, state::Record{}, plan.policy);
        if (record) {
            progress.verdict.started = record->started;
            progress.verdict.security = record->security;
        }
        outcome.exit_code = monitor::run_exit_status(progress.verdict.exit);
        outcome.failure = exit.exec_error;
        if (auto lost = record ? std::nullopt : settle_lost_state(runtime, id, plan)) {
            outcome.failure = *lost;
            progress.verdict.exit.detail += "; " + *lost;
            outcome.exit_code = 1;
        }
        progress.verdict.status = outcome.exit_code;
        progress.decided = true;
        trace::mark("recorded");
    }
    if (!options.keep) {
        auto deleted = delete_container(runtime, id, true);
        // A state dir removed while delete worked in it (rm -rf of --root racing husk's own delete).
        if (!deleted && lost_check && outcome.failure.empty()) {
            if (auto lost = settle_lost_state(runtime, id, *lost_check)) {
                outcome.failure = *lost;
                progress.verdict.exit.detail += "; " + *lost;
                outcome.exit_code = progress.verdict.status = 1;
                return outcome;
            }
        }
        if (!deleted) return std::unexpected(deleted.error());
        outcome.warnings.insert(outcome.warnings.end(), deleted->begin(), deleted->end());
        trace::mark("deleted");
    }
    return outcome;
}

// Nothing ran: the error is the verdict's detail.
frontend::RunVerdict failed_verdict(frontend::RunVerdict verdict, monitor::Reason reason, const Error& error,
                                   int status) {
    verdict.exit.reason = monitor::reason_name(reason);
    verdict.exit.detail = error.message();
    verdict.exit.finished = now_rfc3339_nano();
    verdict.status = status;
    return verdict;
}

// To --verdict FILE or --verdict-fd N.
Result<void> deliver_to_target(const VerdictTarget& target, std::string_view json) {
    if (!target.path.empty()) return frontend::deliver_verdict_file(target.path, json);
    if (target.fd >= 0) return frontend::deliver_verdict_fd(target.fd, json);
    return {};
}

// With json, the same object as the stream's last line; t is 0 when husk never started the container.
Result<void> deliver_line(OutputFormat format, std::string_view json,
                          std::optional<std::chrono::steady_clock::time_point> begun) {
    if (format != OutputFormat::json) return {};
    return frontend::deliver_verdict_line(json, begun ? frontend::seconds_since(*begun) : 0);
}

}  // namespace

Result<RunOutcome> run_container(const Runtime& runtime, const ContainerId& id, const RunOptions& options) {
    if (options.detach) {
        if (options.output_format == OutputFormat::json)
            return fail_msg("--output-format json needs a foreground run, not --detach");
        RunOutcome outcome;
        TRY(create_container(runtime, id, options.create));
        auto started = start_container(runtime, id);
        if (!started) {
            (void)delete_container(runtime, id, true);
            return std::unexpected(started.error());
        }
        outcome.warnings = std::move(*started);
        return outcome;
    }
    Progress progress;
    progress.verdict.id = id.str();
    auto outcome = run_foreground(runtime, id, options, progress);
    // Refused before anything existed: the kind says so to the CLI, which exits refusal_status then, as for a
    // command line it refused itself (husk(8), EXIT STATUS).
    if (!outcome && !progress.prepared && outcome.error().kind != ErrorKind::tenant_quota)
        outcome.error().kind = ErrorKind::refused;
    if (!options.verdict.wanted() && options.output_format == OutputFormat::text) return outcome;
    // Exactly one verdict: the container's exit once there was one (a failed delete afterwards does not change
    // how the program ended), else the error that kept it from running.
    if (!progress.decided) {
        monitor::Reason reason = progress.prepared ? monitor::Reason::setup_failed : monitor::Reason::refused;
        if (outcome.error().kind == ErrorKind::tenant_quota) reason = monitor::Reason::tenant_quota;
        progress.verdict = failed_verdict(std::move(progress.verdict), reason, outcome.error(),
                                          error_status(outcome.error()));  // what the CLI exits with
    }
    std::string json = frontend::encode_verdict(progress.verdict);
    // A reader of the stream that went away does not change how the program ended: a warning, not the status.
    if (auto line = deliver_line(options.output_format, json, progress.begun); !line && outcome)
        outcome->warnings.push_back(line.error().message());
    TRY(deliver_to_target(options.verdict, json));
    return outcome;
}

Result<void> deliver_refused_verdict(const VerdictTarget& target, const std::string& id, const Error& error,
                                     int status, OutputFormat format) {
    frontend::RunVerdict verdict;
    verdict.id = id;
    std::string json = frontend::encode_verdict(failed_verdict(std::move(verdict), monitor::Reason::refused, error, status));
    auto line = deliver_line(format, json, std::nullopt);
    TRY(deliver_to_target(target, json));
    return line;
}

}  // namespace husk
