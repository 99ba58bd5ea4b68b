#include "spec/default_spec.hpp"

#include <initializer_list>
#include <string_view>

#include "spec/config_writer.hpp"

namespace husk::spec {
namespace {

void process(JsonWriter& out) {
    // runc's default keeps three capabilities in every set but inheritable.
    out.key("process").begin_object();
    out.key("terminal").boolean(true);
    out.key("user").begin_object().key("uid").integer(0).key("gid").integer(0).end_object();
    write_strings(out, "args", {"sh"});
    write_strings(out, "env", {"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "TERM=xterm"});
    out.key("cwd").string("/");
    out.key("capabilities").begin_object();
    for (std::string_view set : {"bounding", "effective", "permitted", "ambient"}) 
        write_strings(out, set, {"CAP_AUDIT_WRITE", "CAP_KILL", "CAP_NET_BIND_SERVICE"});
    out.end_object();
    out.key("rlimits").begin_array();
    out.begin_object().key("type").string("RLIMIT_NOFILE").key("hard").integer(1024).key("soft").integer(1024);
    out.end_object().end_array();
    out.key("noNewPrivileges").boolean(true);
    out.end_object();
}

// Without root: the caller's ids as root, nothing else mapped.
struct Rootless {
    std::uint32_t uid = 0, gid = 0;
};

void mounts(JsonWriter& out, const Rootless* rootless) {
    out.key("mounts").begin_array();
    write_mount(out, "/proc", "proc", "proc", {});
    write_mount(out, "/dev", "tmpfs", "tmpfs", {"nosuid", "strictatime", "mode=755", "size=65536k"});
    if (rootless != nullptr)  // gid 5 (tty) is not mapped
        write_mount(out, "/dev/pts", "devpts", "devpts", {"nosuid", "noexec", "newinstance", "ptmxmode=0666", "mode=0620"});
    else
        write_mount(out, "/dev/pts", "devpts", "devpts",
              {"nosuid", "noexec", "newinstance", "ptmxmode=0666", "mode=0620", "gid=5"});
    write_mount(out, "/dev/shm", "tmpfs", "shm", {"nosuid", "noexec", "nodev", "mode=1777", "size=65536k"});
    write_mount(out, "/dev/mqueue", "mqueue", "mqueue", {"nosuid", "noexec", "nodev"});
    // A sysfs mount needs a network namespace of the user namespace's own: without one, the host's /sys.
    if (rootless != nullptr)
        write_mount(out, "/sys", "none", "/sys", {"rbind", "nosuid", "noexec", "nodev", "ro"});
    else
        write_mount(out, "/sys", "sysfs", "sysfs", {"nosuid", "noexec", "nodev", "ro"});
    write_mount(out, "/sys/fs/cgroup", "cgroup", "cgroup", {"nosuid", "noexec", "nodev", "relatime", "ro"});
    out.end_array();
}

void id_map(JsonWriter& out, const char* key, std::uint32_t host_id) {
    out.key(key).begin_array().begin_object();
    out.key("containerID").integer(0).key("hostID").unsigned_integer(host_id).key("size").integer(1);
    out.end_object().end_array();
}

void linux(JsonWriter& out, const Rootless* rootless) {
    out.key("linux").begin_object();
    if (rootless != nullptr) {
        id_map(out, "uidMappings", rootless->uid);
        id_map(out, "gidMappings", rootless->gid);
    } else {
        // Deny every device by default; the runtime's default devices (null, zero, tty, ...) are allowed on top.
        out.key("resources").begin_object().key("devices").begin_array();
        out.begin_object().key("allow").boolean(false).key("access").string("rwm").end_object();
        out.end_array().end_object();
    }
    out.key("namespaces").begin_array();
    for (std::string_view type : {"pid", "network", "ipc", "uts", "mount"})
        if (rootless == nullptr || type != "network") out.begin_object().key("type").string(type).end_object();
    if (rootless != nullptr) out.begin_object().key("type").string("user").end_object();
    out.end_array();
    write_strings(out, "maskedPaths",
                 {"/proc/acpi", "/proc/asound", "/proc/kcore", "/proc/keys", "/proc/latency_stats", "/proc/timer_list",
                  "/proc/timer_stats", "/proc/sched_debug", "/sys/firmware", "/proc/scsi"});
    write_strings(out, "readonlyPaths", {"/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys", "/proc/sysrq-trigger"});
    out.end_object();
}

std::string spec_json(const Rootless* rootless) {
    JsonWriter out(JsonWriter::Style::pretty);
    out.begin_object();
    out.key("ociVersion").string("1.3.0");
    process(out);
    out.key("root").begin_object().key("path").string("rootfs").key("readonly").boolean(true).end_object();
    out.key("hostname").string("runc");
    mounts(out, rootless);
    linux(out, rootless);
    out.end_object();
    // yajl's beautifier ends the document with a newline; runc's file has none, and callers add their own.
    std::string json = out.str();
    if (json.ends_with('\n')) json.pop_back();
    return json;
}

}  // namespace

std::string default_spec_json() { return spec_json(nullptr); }

std::string rootless_spec_json(std::uint32_t uid, std::uint32_t gid) {
    const Rootless rootless{uid, gid};
    return spec_json(&rootless);
}

}  // namespace husk::spec
