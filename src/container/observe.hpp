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

// OCI state (runtime.md "State") plus runc's extras and husk's own object.
std::string oci_state_json(const state::Record& record, std::string_view status, pid_t pid);

}  // namespace husk::container
