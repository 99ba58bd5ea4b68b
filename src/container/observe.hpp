// The status of a container, computed from its record and the live system on every read
// (docs/ARCHITECTURE.md, "State"): nobody has to tell husk that init exited for `state` to say "stopped".
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <string_view>

#include "base/json_writer.hpp"
#include "state/record.hpp"
#include "state/state_dir.hpp"

namespace husk::container {

enum class Status { creating, created, running, paused, stopped };

const char* status_name(Status status);

struct Observed {
    Status status = Status::stopped;
    pid_t pid = 0;  // 0 unless init is alive
};

// Whether the create that wrote this record is still running (record.creator_pid, verified by start time).
bool creator_alive(const state::Record& record);

Observed observe(const state::StateDir& dir, const std::optional<state::Record>& record);
// observe() of a record in its two halves, for a reader that opens the state dir only when it must (`list`):
// what the record and /proc settle (creating, stopped), nothing while init lives; then, init alive, what the
// state dir and the cgroup say (created, paused, running).
std::optional<Observed> observe_record(const state::Record& record);
Observed observe_live(const state::StateDir& dir, const state::Record& record);

// Whether nobody will ever finish this container but `husk gc`: it is stopped, its monitor is gone (nobody is about
// to record a verdict or delete it), and its owner is gone (the process that ran `husk create`/`husk run`, by pid
// + start time), or it was a foreground `husk run` (no --keep), lost before it deleted it. Never one that is
// creating, created, running or paused, nor one whose owner was not recorded.
bool orphaned(const state::StateDir& dir, const state::Record& record);

// OCI state (runtime.md "State") plus runc's extras and husk's own object.
std::string oci_state_json(const state::Record& record, std::string_view status, pid_t pid);

}  // namespace husk::container
