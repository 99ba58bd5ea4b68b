#include "monitor/record.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <string>

#include "cgroup/cgroup.hpp"
#include "monitor/counters.hpp"
#include "monitor/tenant_charge.hpp"
#include "monitor/verdict.hpp"
#include "state/state_dir.hpp"

namespace husk::monitor {
namespace {

// The state dir as the monitor sees it: by path, locked exclusively, holding init's record and no exit yet.
struct LockedRecord {
    state::StateDir dir;
    state::Record record;
};

std::optional<LockedRecord> open_for_update(const MonitorPlan& plan, pid_t init) {
    auto dir = state::StateDir::open(plan.root, plan.id);
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

// The monitor has no terminal (its stdio is /dev/null), so a record it cannot write is reported where a user
// finds it: the system log, as conmon reports its own failures, and the state dir's monitor-error file, which
// `husk state` and `husk events` read when the verdict is missing (verdict_reader.cpp).
void report_unwritten(const LockedRecord& locked, const char* what, const Error& error) {
    std::string message = std::string("the monitor could not record ") + what + ": " + error.message();
    ::openlog("husk", LOG_PID, LOG_DAEMON);
    ::syslog(LOG_ERR, "container %s: %s", locked.record.id.c_str(), message.c_str());
    ::closelog();
    locked.dir.note_monitor_error(message);
}

}  // namespace

void record_cause(const MonitorPlan& plan, pid_t init, const state::StopCause& cause) {
    auto locked = open_for_update(plan, init);
    if (!locked || locked->record.cause) return;
    locked->record.cause = cause;
    if (auto written = locked->dir.write_record(locked->record); !written)
        report_unwritten(*locked, "the stop cause", written.error());
}

std::optional<state::Record> record_exit(const MonitorPlan& plan, pid_t init, const ExitStatus& status) {
    FinalCounters counters = read_final_counters(plan);
    counters.usage.stdout_bytes = status.stdout_bytes;
    counters.usage.stderr_bytes = status.stderr_bytes;
    auto locked = open_for_update(plan, init);
    if (!locked) return std::nullopt;
    locked->record.exit = decide_exit(status, locked->record, plan.policy, counters.facts);
    qualify_unrecorded_kills(locked->dir, *locked->record.exit);
    locked->record.exit->usage = counters.usage;
    locked->record.exit->factors = std::move(counters.factors);
    // The charge first, under the state lock: husk delete, which charges a run whose monitor was lost, takes
    // that lock too, and sees either no verdict (it waits for it) or the charge made.
    if (plan.tenant)
        if (auto charged = charge_tenant(tenant_run(plan.root, *plan.tenant, locked->record),
                                         used_by(locked->record, counters.usage.cpu_usec), tenant::Source::monitor);
            !charged)
            report_unwritten(*locked, "the tenant charge", charged.error());
    if (auto written = locked->dir.write_record(locked->record); !written)
        report_unwritten(*locked, "init's exit", written.error());
    return std::move(locked->record);
}

bool state_dir_lost(const MonitorPlan& plan) {
    auto dir = state::StateDir::open(plan.root, plan.id);
    return !dir && dir.error().kind == ErrorKind::not_found;
}

Result<void> remove_lost_cgroup(const MonitorPlan& plan) {
    if (!plan.cgroup || !plan.held_cgroup || !*plan.held_cgroup) return {};
    const std::string where = plan.cgroup->where();
    struct stat held {}, named {};
    if (::fstat(plan.held_cgroup->get(), &held) != 0) return fail_sys(errno, "fstat", where);
    if (::stat(where.c_str(), &named) != 0) {
        if (errno == ENOENT) return {};  // gone already
        return fail_sys(errno, "stat", where);
    }
    // Another container made since at the same path is not this one's to remove.
    if (held.st_dev != named.st_dev || held.st_ino != named.st_ino) return {};
    (void)cgroup::kill_all(*plan.cgroup, SIGKILL);
    return cgroup::remove_cgroup(*plan.cgroup);
}

}  // namespace husk::monitor
