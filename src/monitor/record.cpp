#include "monitor/record.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <string>

#include "monitor/counters.hpp"
#include "monitor/verdict.hpp"
#include "state/state_dir.hpp"

namespace husk::monitor {
namespace {

// The state dir as the monitor sees it: by path, locked exclusively, holding init's record and no exit yet.
struct LockedRecord {
    state::StateDir dir;
    state::Record record;
};

std::optional<LockedRecord> open_for_update(const std::string& state_path, pid_t init) {
    auto slash = state_path.rfind('/');
    auto dir = state::StateDir::open(state_path.substr(0, slash), state_path.substr(slash + 1));
    if (!dir || !dir->lock(state::Lock::exclusive)) return std::nullopt;
    auto record = dir->read_record();
    if (!record || record->pid != init || record->exit) return std::nullopt;
    return LockedRecord{std::move(*dir), std::move(*record)};
}

// `exited` and `signaled` say that husk sent no stop signal, which the record proves only while every kill
// request got into it: `kill` unlinks kills-recorded when it could not write one (state filesystem full).
// Then the status is still reported, but not who ended the container.
void qualify_unrecorded_kills(const state::StateDir& dir, state::ExitRecord& exit) {
    if (exit.reason != reason_name(Reason::exited) && exit.reason != reason_name(Reason::signaled)) return;
    if (::faccessat(dir.fd(), state::StateDir::kills_recorded, F_OK, AT_SYMLINK_NOFOLLOW) == 0) return;
    exit.detail = (exit.signal != 0 ? "terminated by signal " + std::to_string(exit.signal)
                                    : "exit code " + std::to_string(exit.code)) +
                  "; a husk kill request could not be recorded (state filesystem full?), so whether husk asked "
                  "for this end is unknown";
    exit.reason = reason_name(Reason::unknown);
}

}  // namespace

void record_cause(const MonitorPlan& plan, pid_t init, const state::StopCause& cause) {
    auto locked = open_for_update(plan.state_path, init);
    if (!locked || locked->record.cause) return;
    locked->record.cause = cause;
    (void)locked->dir.write_record(locked->record);
}

std::optional<state::ExitRecord> record_exit(const MonitorPlan& plan, pid_t init, const ExitStatus& status) {
    FinalCounters counters = read_final_counters(plan);
    counters.usage.stdout_bytes = status.stdout_bytes;
    counters.usage.stderr_bytes = status.stderr_bytes;
    auto locked = open_for_update(plan.state_path, init);
    if (!locked) return std::nullopt;
    locked->record.exit = decide_exit(status, locked->record, plan.policy, counters.facts);
    qualify_unrecorded_kills(locked->dir, *locked->record.exit);
    locked->record.exit->usage = counters.usage;
    locked->record.exit->factors = std::move(counters.factors);
    (void)locked->dir.write_record(locked->record);
    return locked->record.exit;
}

}  // namespace husk::monitor
