#include "container/observe.hpp"

#include <fcntl.h>
#include <unistd.h>

#include "base/json_writer.hpp"
#include "cgroup/cgroup.hpp"
#include "container/config.hpp"
#include "frontend/verdict_reader.hpp"
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

std::optional<Observed> observe_record(const state::Record& record) {
    // Create has not committed: `creating` while its process lives; once it is gone, what it left is stopped
    // (whatever still runs is killed by delete, which a stopped container accepts, with or without --force).
    if (record.creator_pid != 0) return Observed{creator_alive(record) ? Status::creating : Status::stopped, 0};
    if (!state::open_live_pidfd(record.pid, record.pid_start_time, record.boot_id))
        return Observed{Status::stopped, 0};
    return std::nullopt;
}

Observed observe_live(const state::StateDir& dir, const state::Record& record) {
    if (::faccessat(dir.fd(), state::StateDir::exec_fifo, F_OK, AT_SYMLINK_NOFOLLOW) == 0)
        return Observed{Status::created, record.pid};
    if (auto cgroup = cgroup_of(record)) {
        auto frozen = cgroup::is_frozen(*cgroup);
        if (frozen && *frozen) return Observed{Status::paused, record.pid};
    }
    return Observed{Status::running, record.pid};
}

Observed observe(const state::StateDir& dir, const std::optional<state::Record>& record) {
    if (!record) {
        // No record yet: a create in progress holds the lock; otherwise it died half-way.
        return Observed{dir.locked_by_other() ? Status::creating : Status::stopped, 0};
    }
    if (auto settled = observe_record(*record)) return *settled;
    return observe_live(dir, *record);
}

bool orphaned(const state::StateDir& dir, const state::Record& record) {
    if (record.caller_pid == 0) return false;  // a create in progress, or an owner never recorded
    if (observe(dir, record).status != Status::stopped) return false;
    if (frontend::monitor_alive(record)) return false;  // about to record the verdict, or to delete
    // A foreground husk run without --keep was to delete it itself: lost (SIGKILLed) before it did, it leaves
    // the container to nobody, whether its caller lives or not.
    if (record.monitor_deletes) return true;
    return !state::open_live_pidfd(record.caller_pid, record.caller_start_time, record.boot_id);
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
    if (frontend::exit_known(record, status)) {
        w.key("exit").begin_object();
        frontend::write_exit_members(w, record);
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
