#include "state/record.hpp"

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "base/json_reader.hpp"
#include "base/json_writer.hpp"

namespace husk::state {

void write_usage(JsonWriter& w, const Usage& usage) {
    if (!usage.cpu_usec && !usage.memory_peak_bytes && !usage.pids_peak && !usage.stdout_bytes && !usage.stderr_bytes &&
        !usage.net_ops)
        return;
    w.key("usage").begin_object();
    if (usage.cpu_usec) w.key("cpuUsec").unsigned_integer(*usage.cpu_usec);
    if (usage.memory_peak_bytes) w.key("memoryPeakBytes").unsigned_integer(*usage.memory_peak_bytes);
    if (usage.pids_peak) w.key("pidsPeak").unsigned_integer(*usage.pids_peak);
    if (usage.stdout_bytes) w.key("stdoutBytes").unsigned_integer(*usage.stdout_bytes);
    if (usage.stderr_bytes) w.key("stderrBytes").unsigned_integer(*usage.stderr_bytes);
    if (usage.net_ops) w.key("netOps").unsigned_integer(*usage.net_ops);
    w.end_object();
}

namespace {

// "0x%016llx"
std::string hex_mask(std::uint64_t bits) {
    std::string text = "0x0000000000000000";
    for (std::size_t i = text.size(); bits != 0; bits >>= 4) text[--i] = "0123456789abcdef"[bits & 0xf];
    return text;
}

void write_strings(JsonWriter& w, const char* key, const std::vector<std::string>& items) {
    if (items.empty()) return;
    w.key(key).begin_array();
    for (const std::string& item : items) w.string(item);
    w.end_array();
}

void write_resolved(JsonWriter& w, const std::vector<SeccompResolved>& resolved) {
    if (resolved.empty()) return;
    w.key("seccompResolved").begin_array();
    for (const SeccompResolved& r : resolved) {
        w.begin_object();
        w.key("syscall").string(r.syscall);
        w.key("kept").string(r.kept);
        write_strings(w, "dropped", r.dropped);
        w.end_object();
    }
    w.end_array();
}

}  // namespace

void write_id_map(JsonWriter& w, const char* key, const std::vector<IdMapLine>& map) {
    if (map.empty()) return;
    w.key(key).begin_array();
    for (const IdMapLine& line : map) {
        w.begin_object().key("containerID").unsigned_integer(line.container_id);
        w.key("hostID").unsigned_integer(line.host_id).key("size").unsigned_integer(line.size).end_object();
    }
    w.end_array();
}

void write_security(JsonWriter& w, const Security& s) {
    w.key("security").begin_object();
    w.key("seccomp").string(s.seccomp);
    if (s.seccomp != "none" || s.seccomp_filters != 0) w.key("seccompFilters").integer(s.seccomp_filters);
    write_strings(w, "seccompSkippedSyscalls", s.seccomp_skipped);
    write_resolved(w, s.seccomp_resolved);
    if (s.landlock_abi) w.key("landlockAbi").integer(*s.landlock_abi);
    write_strings(w, "landlockDropped", s.landlock_dropped);
    w.key("noNewPrivileges").boolean(s.no_new_privileges);
    w.key("capsEffective").string(hex_mask(s.caps_effective));
    w.key("capsBounding").string(hex_mask(s.caps_bounding));
    if (s.user_namespace) w.key("userNamespace").boolean(*s.user_namespace);
    if (s.host_uid) w.key("hostUid").integer(*s.host_uid);
    if (s.host_gid) w.key("hostGid").integer(*s.host_gid);
    write_id_map(w, "uidMap", s.uid_map);
    write_id_map(w, "gidMap", s.gid_map);
    w.end_object();
}

void write_factors(JsonWriter& w, const std::vector<Factor>& factors) {
    if (factors.empty()) return;
    w.key("factors").begin_array();
    for (const Factor& f : factors) {
        w.begin_object();
        w.key("kind").string(f.kind);
        w.key("count").unsigned_integer(f.count);
        w.end_object();
    }
    w.end_array();
}

std::string encode_record(const Record& r) {
    JsonWriter w;
    w.begin_object();
    w.key("id").string(r.id);
    w.key("bundle").string(r.bundle);
    w.key("rootfs").string(r.rootfs);
    w.key("created").string(r.created);
    w.key("owner").string(r.owner);
    w.key("annotations").begin_object();
    for (const auto& [key, value] : r.annotations) w.key(key).string(value);
    w.end_object();
    w.key("pid").integer(r.pid);
    w.key("pidStartTime").unsigned_integer(r.pid_start_time);
    w.key("bootId").string(r.boot_id);
    w.key("monitorPid").integer(r.monitor_pid);
    w.key("monitorStartTime").unsigned_integer(r.monitor_start_time);
    if (r.creator_pid != 0 || r.creator_start_time != 0) {
        w.key("creatorPid").integer(r.creator_pid);
        w.key("creatorStartTime").unsigned_integer(r.creator_start_time);
    }
    if (r.caller_pid != 0 || r.caller_start_time != 0) {
        w.key("callerPid").integer(r.caller_pid);
        w.key("callerStartTime").unsigned_integer(r.caller_start_time);
    }
    if (r.die_with_parent) w.key("dieWithParent").boolean(true);
    if (r.monitor_deletes) w.key("monitorDeletes").boolean(true);
    w.key("cgroupMount").string(r.cgroup_mount);
    w.key("cgroupPath").string(r.cgroup_path);
    w.key("started").string(r.started);
    if (r.security) write_security(w, *r.security);
    if (r.cause) {
        w.key("cause").begin_object();
        w.key("reason").string(r.cause->reason);
        w.key("detail").string(r.cause->detail);
        w.key("at").string(r.cause->at);
        w.end_object();
    }
    if (!r.kill_requests.empty()) {
        w.key("killRequests").begin_array();
        for (int signal : r.kill_requests) w.integer(signal);
        w.end_array();
    }
    if (r.force_deleted) w.key("forceDeleted").boolean(true);
    if (r.exit) {
        w.key("exit").begin_object();
        w.key("code").integer(r.exit->code);
        w.key("signal").integer(r.exit->signal);
        w.key("reason").string(r.exit->reason);
        w.key("detail").string(r.exit->detail);
        w.key("finished").string(r.exit->finished);
        write_usage(w, r.exit->usage);
        write_factors(w, r.exit->factors);
        w.end_object();
    }
    w.end_object();
    return w.str();
}

namespace {

using json::Node;
using json::read_field;

// Optional objects of the record: absent stays nothing, anything else must be an object.
template <typename T, typename Fn>
Result<void> read_object(const Node& parent, std::string_view key, std::optional<T>& out, Fn&& parse) {
    Node node = parent.field(key);
    if (node.absent()) return {};
    TRY(node.expect_object());
    TRY(parse(node, out.emplace()));
    return {};
}

Result<void> parse_security(const Node& node, Security& sec) {
    TRY(read_field(node, "seccomp", sec.seccomp));
    TRY(read_field(node, "seccompFilters", sec.seccomp_filters));
    TRY(read_field(node, "seccompSkippedSyscalls", sec.seccomp_skipped));
    TRY(json::read_array(node, "seccompResolved", sec.seccomp_resolved, [](const Node& item, SeccompResolved& r) -> Result<void> {
        TRY(item.expect_object());
        TRY(read_field(item, "syscall", r.syscall));
        TRY(read_field(item, "kept", r.kept));
        return read_field(item, "dropped", r.dropped);
    }));
    TRY(read_field(node, "landlockAbi", sec.landlock_abi));
    TRY(read_field(node, "landlockDropped", sec.landlock_dropped));
    TRY(read_field(node, "noNewPrivileges", sec.no_new_privileges));
    // Written as "0x" and 16 hex digits: a mask reads best in hex, and JSON numbers above 2^53 lose bits in
    // many readers.
    std::string effective, bounding;
    TRY(read_field(node, "capsEffective", effective));
    TRY(read_field(node, "capsBounding", bounding));
    sec.caps_effective = std::strtoull(effective.c_str(), nullptr, 16);
    sec.caps_bounding = std::strtoull(bounding.c_str(), nullptr, 16);
    TRY(read_field(node, "userNamespace", sec.user_namespace));
    TRY(read_field(node, "hostUid", sec.host_uid));
    TRY(read_field(node, "hostGid", sec.host_gid));
    for (auto [key, map] : {std::pair{"uidMap", &sec.uid_map}, std::pair{"gidMap", &sec.gid_map}})
        TRY(json::read_array(node, key, *map, [](const Node& item, IdMapLine& line) -> Result<void> {
            TRY(item.expect_object());
            TRY(read_field(item, "containerID", line.container_id));
            TRY(read_field(item, "hostID", line.host_id));
            return read_field(item, "size", line.size);
        }));
    return {};
}

Result<void> parse_exit(const Node& node, ExitRecord& e) {
    TRY(read_field(node, "code", e.code));
    TRY(read_field(node, "signal", e.signal));
    TRY(read_field(node, "reason", e.reason));
    TRY(read_field(node, "detail", e.detail));
    TRY(read_field(node, "finished", e.finished));
    if (Node usage = node.field("usage"); !usage.absent()) {
        TRY(usage.expect_object());
        TRY(read_field(usage, "cpuUsec", e.usage.cpu_usec));
        TRY(read_field(usage, "memoryPeakBytes", e.usage.memory_peak_bytes));
        TRY(read_field(usage, "pidsPeak", e.usage.pids_peak));
        TRY(read_field(usage, "stdoutBytes", e.usage.stdout_bytes));
        TRY(read_field(usage, "stderrBytes", e.usage.stderr_bytes));
        TRY(read_field(usage, "netOps", e.usage.net_ops));
    }
    return json::read_array(node, "factors", e.factors, [](const Node& item, Factor& f) -> Result<void> {
        TRY(item.expect_object());
        TRY(read_field(item, "kind", f.kind));
        return read_field(item, "count", f.count);
    });
}

Result<Record> parse_record(const Node& root) {
    Record r;
    TRY(read_field(root, "id", r.id));
    TRY(read_field(root, "bundle", r.bundle));
    TRY(read_field(root, "rootfs", r.rootfs));
    TRY(read_field(root, "created", r.created));
    TRY(read_field(root, "owner", r.owner));
    TRY(read_field(root, "annotations", r.annotations));
    TRY(read_field(root, "pid", r.pid));
    TRY(read_field(root, "pidStartTime", r.pid_start_time));
    TRY(read_field(root, "bootId", r.boot_id));
    TRY(read_field(root, "monitorPid", r.monitor_pid));
    TRY(read_field(root, "monitorStartTime", r.monitor_start_time));
    TRY(read_field(root, "creatorPid", r.creator_pid));
    TRY(read_field(root, "creatorStartTime", r.creator_start_time));
    TRY(read_field(root, "callerPid", r.caller_pid));
    TRY(read_field(root, "callerStartTime", r.caller_start_time));
    TRY(read_field(root, "dieWithParent", r.die_with_parent));
    TRY(read_field(root, "monitorDeletes", r.monitor_deletes));
    TRY(read_field(root, "cgroupMount", r.cgroup_mount));
    TRY(read_field(root, "cgroupPath", r.cgroup_path));
    TRY(read_field(root, "started", r.started));
    TRY(read_object(root, "security", r.security, parse_security));
    TRY(read_object(root, "cause", r.cause, [](const Node& node, StopCause& c) -> Result<void> {
        TRY(read_field(node, "reason", c.reason));
        TRY(read_field(node, "detail", c.detail));
        return read_field(node, "at", c.at);
    }));
    TRY(read_field(root, "killRequests", r.kill_requests));
    TRY(read_field(root, "forceDeleted", r.force_deleted));
    TRY(read_object(root, "exit", r.exit, parse_exit));
    return r;
}

}  // namespace

Result<Record> decode_record(std::string_view text) {
    // A state dir is husk's, but anyone with root can write to it: bounded like every other JSON, and read
    // with the same typed reader as config.json, so a value of the wrong type is an error naming it.
    auto tree = json::parse_tree(text);
    if (!tree) return fail(tree.error().context("corrupt state.json"));
    Node root(tree->get(), "");
    if (!root.expect_object()) return fail_msg("corrupt state.json: not a JSON object");
    auto record = parse_record(root);
    if (!record) return fail(record.error().context("corrupt state.json"));
    return record;
}

}  // namespace husk::state
