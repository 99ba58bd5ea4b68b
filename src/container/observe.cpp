#include "container/observe.hpp"

#include <fcntl.h>
#include <unistd.h>

#include "base/json_writer.hpp"
#include "cgroup/cgroup.hpp"
#include "container/record_cgroup.hpp"
#include "container/verdict.hpp"
#include "state/process_identity.hpp"

namespace husk::container {

const char* status_name(Status status) {
    switch (status) {
        case Status::creating: return "creating";
        case Status::created: return "created";
        case Status::running: return "running";
        case Status::paused: return "paused";
        case Status::stopped: return "stopped";
    }
    return "unknown";
}

bool creator_alive(const state::Record& record) {
    return record.creator_pid != 0 &&
           state::open_live_pidfd(record.creator_pid, record.creator_start_time, record.boot_id).has_value();
}

Observed observe(const state::StateDir& dir, const std::optional<state::Record>& record) {
    if (!record) {
        // No record yet: a create in progress holds the lock; otherwise it died half-way.
        return Observed{dir.locked_by_other() ? Status::creating : Status::stopped, 0};
    }
    // Create has not committed: `creating` while its process lives; once it is gone, what it left is stopped
    // (whatever still runs is killed by delete, which a stopped container accepts, with or without --force).
    if (record->creator_pid != 0)
        return Observed{creator_alive(*record) ? Status::creating : Status::stopped, 0};
    auto pidfd = state::open_live_pidfd(record->pid, record->pid_start_time, record->boot_id);
    if (!pidfd) return Observed{Status::stopped, 0};
    if (::faccessat(dir.fd(), state::StateDir::exec_fifo, F_OK, AT_SYMLINK_NOFOLLOW) == 0)
        return Observed{Status::created, record->pid};
    if (auto cgroup = cgroup_of(*record)) {
        auto frozen = cgroup::is_frozen(*cgroup);
        if (frozen && *frozen) return Observed{Status::paused, record->pid};
    }
    return Observed{Status::running, record->pid};
}

bool exit_known(const state::Record& record, std::string_view status) {
    if (record.exit) return true;
    if (status == "stopped" && record.creator_pid != 0) return true;
    return status == "stopped" && !record.started.empty() &&
           !state::open_live_pidfd(record.monitor_pid, record.monitor_start_time, record.boot_id);
}

void write_exit_members(JsonWriter& w, const state::Record& record) {
    if (record.exit) {
        w.key("code").integer(record.exit->code);
        w.key("signal").integer(record.exit->signal);
        w.key("reason").string(record.exit->reason);
        w.key("detail").string(record.exit->detail);
        // Said plainly, for whoever reads the code 0 next to a limit's reason (husk run exits 122-124 then).
        if (exited_after_limit(*record.exit)) w.key("exitedAfterLimit").boolean(true);
    } else if (record.creator_pid != 0) {
        // Observed: the create process is gone and never committed. Nothing ran the workload.
        w.key("reason").string("setup-failed");
        w.key("detail").string("husk create (pid " + std::to_string(record.creator_pid) +
                               ") ended before the container was created; delete removes what it left");
    } else if (record.cause) {
        // Init is gone and nobody recorded how: the monitor was lost (killed, or the machine rebooted). A cause
        // it recorded before signalling (timeout) still holds; the exit status itself is unknown.
        w.key("reason").string(record.cause->reason);
        w.key("detail").string(record.cause->detail + "; the monitor was lost before it recorded init's exit");
    } else {
        w.key("reason").string("unknown");
        w.key("detail").string("the monitor did not record the exit (it was killed, or the host rebooted)");
    }
}

std::string oci_state_json(const state::Record& record, std::string_view status, pid_t pid) {
    JsonWriter w(JsonWriter::Style::pretty);
    w.begin_object();
    w.key("ociVersion").string("1.3.0");
    w.key("id").string(record.id);
    w.key("pid").integer(pid);
    w.key("status").string(status);
    w.key("bundle").string(record.bundle);
    w.key("rootfs").string(record.rootfs);
    w.key("created").string(record.created);
    w.key("owner").string(record.owner);
    w.key("annotations").begin_object();
    for (const auto& [key, value] : record.annotations) w.key(key).string(value);
    w.end_object();
    w.key("husk").begin_object();
    if (!record.started.empty()) w.key("started").string(record.started);
    if (record.exit) w.key("finished").string(record.exit->finished);
    if (exit_known(record, status)) {
        w.key("exit").begin_object();
        write_exit_members(w, record);
        w.end_object();
    }
    if (record.exit) state::write_factors(w, record.exit->factors);
    if (record.exit) state::write_usage(w, record.exit->usage);
    if (record.security) state::write_security(w, *record.security);
    if (!record.cgroup_path.empty()) w.key("cgroupPath").string(record.cgroup_path);
    w.end_object();
    w.end_object();
    return w.str();
}

}  // namespace husk::container
