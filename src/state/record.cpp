#include "state/record.hpp"

#include <yajl/yajl_tree.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "base/json_tree.hpp"
#include "base/json_writer.hpp"

namespace husk::state {
namespace {

yajl_val member(yajl_val object, const char* name) {
    const char* path[] = {name, nullptr};
    return yajl_tree_get(object, path, yajl_t_any);
}

std::string get_string(yajl_val object, const char* name) {
    yajl_val v = member(object, name);
    return YAJL_IS_STRING(v) ? YAJL_GET_STRING(v) : "";
}

long long get_integer(yajl_val object, const char* name, long long fallback = 0) {
    yajl_val v = member(object, name);
    return YAJL_IS_INTEGER(v) ? YAJL_GET_INTEGER(v) : fallback;
}

// Unsigned values may exceed what yajl keeps as an integer; its raw number text is always there.
std::uint64_t get_unsigned(yajl_val object, const char* name) {
    yajl_val v = member(object, name);
    return YAJL_IS_NUMBER(v) ? std::strtoull(v->u.number.r, nullptr, 10) : 0;
}

}  // namespace

void write_usage(JsonWriter& w, const Usage& usage) {
    if (!usage.cpu_usec && !usage.memory_peak_bytes && !usage.pids_peak && !usage.stdout_bytes && !usage.stderr_bytes)
        return;
    w.key("usage").begin_object();
    if (usage.cpu_usec) w.key("cpuUsec").unsigned_integer(*usage.cpu_usec);
    if (usage.memory_peak_bytes) w.key("memoryPeakBytes").unsigned_integer(*usage.memory_peak_bytes);
    if (usage.pids_peak) w.key("pidsPeak").unsigned_integer(*usage.pids_peak);
    if (usage.stdout_bytes) w.key("stdoutBytes").unsigned_integer(*usage.stdout_bytes);
    if (usage.stderr_bytes) w.key("stderrBytes").unsigned_integer(*usage.stderr_bytes);
    w.end_object();
}

namespace {

std::string hex_mask(std::uint64_t bits) {
    char text[19];
    std::snprintf(text, sizeof text, "0x%016llx", static_cast<unsigned long long>(bits));
    return text;
}

void write_strings(JsonWriter& w, const char* key, const std::vector<std::string>& items) {
    if (items.empty()) return;
    w.key(key).begin_array();
    for (const std::string& item : items) w.string(item);
    w.end_array();
}

std::vector<std::string> get_strings(yajl_val object, const char* name) {
    std::vector<std::string> out;
    if (yajl_val array = member(object, name); YAJL_IS_ARRAY(array)) {
        for (size_t i = 0; i < array->u.array.len; ++i)
            if (YAJL_IS_STRING(array->u.array.values[i])) out.push_back(YAJL_GET_STRING(array->u.array.values[i]));
    }
    return out;
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

std::vector<SeccompResolved> get_resolved(yajl_val security) {
    std::vector<SeccompResolved> out;
    if (yajl_val array = member(security, "seccompResolved"); YAJL_IS_ARRAY(array)) {
        for (size_t i = 0; i < array->u.array.len; ++i)
            if (yajl_val item = array->u.array.values[i]; YAJL_IS_OBJECT(item))
                out.push_back({get_string(item, "syscall"), get_string(item, "kept"), get_strings(item, "dropped")});
    }
    return out;
}

}  // namespace

void write_security(JsonWriter& w, const Security& s) {
    w.key("security").begin_object();
    w.key("seccomp").string(s.seccomp);
    if (s.seccomp != "none") w.key("seccompFilters").integer(s.seccomp_filters);
    write_strings(w, "seccompSkippedSyscalls", s.seccomp_skipped);
    write_resolved(w, s.seccomp_resolved);
    if (s.landlock_abi) w.key("landlockAbi").integer(*s.landlock_abi);
    write_strings(w, "landlockDropped", s.landlock_dropped);
    w.key("noNewPrivileges").boolean(s.no_new_privileges);
    w.key("capsEffective").string(hex_mask(s.caps_effective));
    w.key("capsBounding").string(hex_mask(s.caps_bounding));
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
    if (r.creator_pid != 0) {
        w.key("creatorPid").integer(r.creator_pid);
        w.key("creatorStartTime").unsigned_integer(r.creator_start_time);
    }
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

Result<Record> decode_record(std::string_view json) {
    // A state dir is husk's, but anyone with root can write to it: bounded like every other JSON.
    auto tree = parse_json_tree(json);
    if (!tree) return fail(tree.error().context("corrupt state.json"));
    if (!YAJL_IS_OBJECT(tree->get())) return fail_msg("corrupt state.json: not a JSON object");
    yajl_val root = tree->get();
    Record r;
    r.id = get_string(root, "id");
    r.bundle = get_string(root, "bundle");
    r.rootfs = get_string(root, "rootfs");
    r.created = get_string(root, "created");
    r.owner = get_string(root, "owner");
    if (yajl_val annotations = member(root, "annotations"); YAJL_IS_OBJECT(annotations)) {
        for (size_t i = 0; i < annotations->u.object.len; ++i) {
            yajl_val value = annotations->u.object.values[i];
            if (YAJL_IS_STRING(value)) r.annotations[annotations->u.object.keys[i]] = YAJL_GET_STRING(value);
        }
    }
    r.pid = static_cast<pid_t>(get_integer(root, "pid"));
    r.pid_start_time = get_unsigned(root, "pidStartTime");
    r.boot_id = get_string(root, "bootId");
    r.monitor_pid = static_cast<pid_t>(get_integer(root, "monitorPid"));
    r.monitor_start_time = get_unsigned(root, "monitorStartTime");
    r.creator_pid = static_cast<pid_t>(get_integer(root, "creatorPid"));
    r.creator_start_time = get_unsigned(root, "creatorStartTime");
    r.cgroup_mount = get_string(root, "cgroupMount");
    r.cgroup_path = get_string(root, "cgroupPath");
    r.started = get_string(root, "started");
    if (yajl_val security = member(root, "security"); YAJL_IS_OBJECT(security)) {
        Security sec;
        sec.seccomp = get_string(security, "seccomp");
        sec.seccomp_filters = static_cast<int>(get_integer(security, "seccompFilters"));
        sec.seccomp_skipped = get_strings(security, "seccompSkippedSyscalls");
        sec.seccomp_resolved = get_resolved(security);
        if (YAJL_IS_INTEGER(member(security, "landlockAbi")))
            sec.landlock_abi = static_cast<int>(get_integer(security, "landlockAbi"));
        sec.landlock_dropped = get_strings(security, "landlockDropped");
        sec.no_new_privileges = YAJL_IS_TRUE(member(security, "noNewPrivileges"));
        sec.caps_effective = std::strtoull(get_string(security, "capsEffective").c_str(), nullptr, 16);
        sec.caps_bounding = std::strtoull(get_string(security, "capsBounding").c_str(), nullptr, 16);
        r.security = sec;
    }
    if (yajl_val cause = member(root, "cause"); YAJL_IS_OBJECT(cause)) {
        StopCause c;
        c.reason = get_string(cause, "reason");
        c.detail = get_string(cause, "detail");
        c.at = get_string(cause, "at");
        r.cause = c;
    }
    if (yajl_val requests = member(root, "killRequests"); YAJL_IS_ARRAY(requests)) {
        for (size_t i = 0; i < requests->u.array.len; ++i) {
            yajl_val v = requests->u.array.values[i];
            if (YAJL_IS_INTEGER(v)) r.kill_requests.push_back(static_cast<int>(YAJL_GET_INTEGER(v)));
        }
    }
    if (yajl_val exit = member(root, "exit"); YAJL_IS_OBJECT(exit)) {
        ExitRecord e;
        e.code = static_cast<int>(get_integer(exit, "code", -1));
        e.signal = static_cast<int>(get_integer(exit, "signal"));
        e.reason = get_string(exit, "reason");
        e.detail = get_string(exit, "detail");
        e.finished = get_string(exit, "finished");
        if (yajl_val usage = member(exit, "usage"); YAJL_IS_OBJECT(usage)) {
            auto counter = [&](const char* key) -> std::optional<std::uint64_t> {
                if (!YAJL_IS_NUMBER(member(usage, key))) return std::nullopt;
                return get_unsigned(usage, key);
            };
            e.usage.cpu_usec = counter("cpuUsec");
            e.usage.memory_peak_bytes = counter("memoryPeakBytes");
            e.usage.pids_peak = counter("pidsPeak");
            e.usage.stdout_bytes = counter("stdoutBytes");
            e.usage.stderr_bytes = counter("stderrBytes");
        }
        if (yajl_val factors = member(exit, "factors"); YAJL_IS_ARRAY(factors)) {
            for (size_t i = 0; i < factors->u.array.len; ++i) {
                yajl_val f = factors->u.array.values[i];
                if (YAJL_IS_OBJECT(f)) e.factors.push_back(Factor{get_string(f, "kind"), get_unsigned(f, "count")});
            }
        }
        r.exit = e;
    }
    return r;
}

}  // namespace husk::state
