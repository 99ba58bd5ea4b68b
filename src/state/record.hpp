// Record: what husk stores about one container in <root>/<id>/state.json, and its (de)serialisation.
// The OCI state printed by `husk state` is derived from it (oci_state.hpp); status is computed, not stored.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/json_writer.hpp"
#include "husk/error.hpp"

namespace husk::state {

// What the container's cgroup counted over its life, read by the monitor before teardown; each counter is
// absent when its file is (no cgroup, controller not enabled, older kernel).
struct Usage {
    std::optional<std::uint64_t> cpu_usec;           // cpu.stat usage_usec (cgroup core, every process)
    std::optional<std::uint64_t> memory_peak_bytes;  // memory.peak
    std::optional<std::uint64_t> pids_peak;          // pids.peak
    std::optional<std::uint64_t> stdout_bytes;       // delivered by the output pump (only with an output cap)
    std::optional<std::uint64_t> stderr_bytes;
    std::optional<std::uint64_t> net_ops;  // connects and addressed sends the network policy let through (counted)

    bool operator==(const Usage&) const = default;
};

// Something that limited the container without stopping it, e.g. {"pids-limit", 3}: forks refused at pids.max.
struct Factor {
    std::string kind;
    std::uint64_t count = 0;

    bool operator==(const Factor&) const = default;
};

// The final facts the monitor records when init has gone: the exit, its reason, usage and factors.
struct ExitRecord {
    int code = -1;    // exit code, or 128 + signal
    int signal = 0;   // terminating signal, 0 when the process exited
    std::string reason;  // a stop reason (docs/ARCHITECTURE.md, "State")
    std::string detail;
    std::string finished;  // RFC 3339
    Usage usage;
    std::vector<Factor> factors;

    bool operator==(const ExitRecord&) const = default;
};

// A stop husk decided on itself (the wall-time limit), recorded durably before the first signal is sent, so
// the verdict survives a workload that exits politely and a monitor that dies right after
// (docs/ARCHITECTURE.md, "The monitor").
struct StopCause {
    std::string reason;  // a limit's name in the table of stop reasons (monitor/stop_reasons.hpp)
    std::string detail;
    std::string at;      // RFC 3339

    bool operator==(const StopCause&) const = default;
};

// Conflicting unconditional seccomp rules for one syscall, settled to the strictest (docs/security.md).
struct SeccompResolved {
    std::string syscall;
    std::string kept;
    std::vector<std::string> dropped;

    bool operator==(const SeccompResolved&) const = default;
};

// What was really in force in init before it waited for start: the verified posture
// (docs/security.md, "The verified posture").
struct IdMapLine {
    std::uint32_t container_id = 0;
    std::uint32_t host_id = 0;
    std::uint32_t size = 0;

    bool operator==(const IdMapLine&) const = default;
};

struct Security {
    std::string seccomp = "none";  // "filter" or "none" (/proc/self/status Seccomp)
    int seccomp_filters = 0;
    std::vector<std::string> seccomp_skipped;  // unknown syscall names dropped (run.husk.seccomp-unknown-syscalls)
    std::vector<SeccompResolved> seccomp_resolved;
    std::optional<int> landlock_abi;           // absent: no Landlock asked; 0: best effort, none enforced
    std::vector<std::string> landlock_dropped;  // best effort: rights the kernel's ABI lacks
    bool no_new_privileges = false;
    std::uint64_t caps_effective = 0;
    std::uint64_t caps_bounding = 0;
    // Read by husk (host side) from /proc/PID/status and uid_map once init is ready: the identity the host
    // sees, and whether init is in a user namespace of its own (uid_map other than the initial identity).
    std::optional<std::uint32_t> host_uid, host_gid;
    std::optional<bool> user_namespace;
    // With a user namespace: its uid_map and gid_map as /proc/PID shows them once init is ready (verdict
    // "uidMap"/"gidMap", in the config's containerID/hostID/size terms).
    std::vector<IdMapLine> uid_map, gid_map;

    bool operator==(const Security&) const = default;
};

struct Record {
    std::string id;
    std::string bundle;
    std::string rootfs;
    std::string created;  // RFC 3339 with nanoseconds
    std::string owner;
    std::map<std::string, std::string> annotations;
    pid_t pid = 0;
    std::uint64_t pid_start_time = 0;  // field 22 of /proc/PID/stat: tells a reused pid apart
    std::string boot_id;               // /proc/sys/kernel/random/boot_id at create
    pid_t monitor_pid = 0;
    std::uint64_t monitor_start_time = 0;
    // The `husk create` (or `run`) process while it has not finished: set in the first record, before the
    // cgroup, the monitor or init exist, and cleared when create commits. Set and that process gone means
    // create died half-way: the record then names whatever it may have left (docs/ARCHITECTURE.md, State).
    pid_t creator_pid = 0;
    std::uint64_t creator_start_time = 0;
    // The container's owner for `husk gc`: the process that ran `husk create` or `husk run` (husk's parent), by
    // pid + start time. 0 in a record written before husk recorded it: such a container is never collected.
    pid_t caller_pid = 0;
    std::uint64_t caller_start_time = 0;
    // --die-with-parent: init's parent (husk run, or the monitor) watches the caller, and the kernel kills init
    // when that process dies (PR_SET_PDEATHSIG).
    bool die_with_parent = false;
    // The monitor was to delete the container once it recorded the exit (husk run in the foreground without
    // --keep): when the monitor is gone and the container stopped, nobody else will, and `husk gc` may.
    bool monitor_deletes = false;
    std::string cgroup_mount;  // empty when the container has no cgroup
    std::string cgroup_path;
    std::string started;       // set by start
    std::optional<Security> security;
    std::optional<StopCause> cause;
    // Signals `husk kill` sent, each recorded under the lock before it is sent: the facts behind the reason
    // `killed` (sorted, no duplicates). `delete --force` records its SIGKILL as force_deleted instead, so
    // the verdict names the verb that sent it.
    std::vector<int> kill_requests;
    bool force_deleted = false;
    std::optional<ExitRecord> exit;
    // Not part of state.json: the monitor-error file beside it (StateDir::note_monitor_error), read with the
    // record. Present (perhaps empty) when the monitor failed to write the record at some point.
    std::optional<std::string> monitor_error;

    bool operator==(const Record&) const = default;
};

std::string encode_record(const Record& record);
// `"usage": {...}` with the counters that are there (nothing when none is); state.json and `husk state`.
void write_usage(JsonWriter& w, const Usage& usage);
// `"security": {...}` (state.json and `husk state`).
void write_security(JsonWriter& w, const Security& security);
// `"factors": [{"kind": ..., "count": ...}]`, nothing when there are none.
void write_factors(JsonWriter& w, const std::vector<Factor>& factors);
Result<Record> decode_record(std::string_view json);

}  // namespace husk::state
