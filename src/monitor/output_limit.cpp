#include "monitor/output_limit.hpp"

#include <fcntl.h>

#include <cerrno>
#include <csignal>
#include <limits>

#include "base/time.hpp"
#include "monitor/limits.hpp"
#include "monitor/output_sink.hpp"
#include "monitor/stdio_write.hpp"
#include "monitor/verdict.hpp"

namespace husk::monitor {
namespace {

// The pump in the monitor's loop: its own epoll set, nested. Pumped while init lives, drained after the reap
// (reap → drain → the caller reads the counters and writes the verdict; docs/ARCHITECTURE.md, "The monitor").
class OutputLimitWatcher : public Watcher {
public:
    template <typename... Args>
    explicit OutputLimitWatcher(Args&&... args) : pump_(std::forward<Args>(args)...) {}

    Result<int> open() override {
        sigpipe_.emplace();
        return pump_.fd();
    }
    void on_ready(bool, Enforced& enforced) override {
        pump_.on_ready();
        if (pump_.exceeded()) enforced.fire(Reason::output_limit);
    }
    void finish(ExitStatus& status) override {
        // The tail below the cap is never lost. With a pid namespace every writer died with init and EOF comes at
        // once; a process that outlived init and keeps the pipe open idle gets a second. The byte past the cap may
        // only be found here, after a workload that exited 0 (it still counts).
        pump_.drain(std::chrono::seconds(1));
        status.stdout_bytes = pump_.stdout_bytes();
        status.stderr_bytes = pump_.stderr_bytes();
        if (pump_.exceeded()) status.enforced.fire(Reason::output_limit);
        sigpipe_.reset();
    }

private:
    OutputPump pump_;
    std::optional<IgnoredSigpipe> sigpipe_;
};

}  // namespace

Result<std::optional<OutputPlumbing>> open_output_plumbing(const StopPolicy& policy, Framing framing) {
    if (!policy.output_limit && !framing) return std::optional<OutputPlumbing>{};
    OutputPlumbing plumbing;
    plumbing.pipes = TRY(open_pump_pipes());
    const bool framed = static_cast<bool>(framing);
    plumbing.framing = std::move(framing);
    // Our own fds for the stdio we were given (the monitor's fds 0-2 go to /dev/null when it detaches), and
    // where the kind allows our own non-blocking descriptions (monitor/output_sink.hpp). Framed, husk's stderr is
    // its own messages' alone.
    plumbing.stdout_out = TRY(open_output(1, "output pump: stdout"));
    if (!framed) plumbing.stderr_out = TRY(open_output(2, "output pump: stderr"));
    return std::optional<OutputPlumbing>(std::move(plumbing));
}

state::StopCause output_limit_cause(const StopPolicy& policy) {
    state::StopCause cause;
    cause.reason = reason_name(Reason::output_limit);
    cause.detail = "stdout+stderr went past the output limit " + format_bytes(policy.output_limit.value_or(0)) +
                   "; delivered up to the limit, killing the container";
    cause.at = now_rfc3339_nano();
    return cause;
}

std::unique_ptr<Watcher> watch_output_limit(LimitSetup& setup) {
    if (!setup.output) return nullptr;
    OutputPlumbing& output = *setup.output;
    output.pipes.stdout_write.reset();  // init has its own copies: EOF comes when the container is done
    output.pipes.stderr_write.reset();
    auto enforcer = setup.enforcer;
    // Without a cap (json alone) the pump never reaches one.
    std::uint64_t cap = enforcer->policy().output_limit.value_or(std::numeric_limits<std::uint64_t>::max());
    auto exceeded = [enforcer] {
        enforcer->record_cause(output_limit_cause(enforcer->policy()));
        enforcer->kill();
    };
    if (output.framing)
        return std::make_unique<OutputLimitWatcher>(
            std::move(output.pipes), output.framing(std::move(output.stdout_out), output.origin), cap, exceeded);
    return std::make_unique<OutputLimitWatcher>(std::move(output.pipes), std::move(output.stdout_out),
                                                std::move(output.stderr_out), cap, exceeded);
}

std::string output_limit_detail(const StopPolicy& policy, const ExitStatus&, const state::StopCause* recorded) {
    if (recorded) return recorded->detail;
    return output_limit_cause(policy).detail;
}

}  // namespace husk::monitor
