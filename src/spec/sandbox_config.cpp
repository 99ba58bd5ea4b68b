#include "spec/sandbox_config.hpp"

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <string_view>
#include <utility>

#include "spec/config_writer.hpp"
#include "spec/settings.hpp"

namespace husk::spec {
namespace {

// A read-only bind is read-only all the way down ("rro"): a submount of a host path must not stay writable.
// nosuid and nodev as the host view is for reading programs and libraries, never for gaining privileges.
void bind(JsonWriter& out, const SandboxBind& bind) {
    if (bind.writable) write_mount(out, bind.destination, "bind", bind.source, {"rbind", "nosuid", "nodev"});
    else write_mount(out, bind.destination, "bind", bind.source, {"rbind", "rro", "nosuid", "nodev"});
}

// A later K=V of the same name replaces the earlier one in place, as a shell's environment does.
std::vector<std::string> merged_env(const std::vector<std::string>& env) {
    std::vector<std::string> merged;
    for (const std::string& entry : env) {
        std::string_view name = std::string_view(entry).substr(0, entry.find('='));
        bool replaced = false;
        for (std::string& existing : merged)
            if (std::string_view(existing).substr(0, existing.find('=')) == name) {
                existing = entry;
                replaced = true;
            }
        if (!replaced) merged.push_back(entry);
    }
    return merged;
}

void rlimit(JsonWriter& out, std::string_view type, std::uint64_t value) {
    out.begin_object().key("type").string(type).key("hard").unsigned_integer(value).key("soft").unsigned_integer(value);
    out.end_object();
}

// The file rights Landlock ABI 1-3 knows (docs/landlock.md); ioctl_dev (ABI 5) is left unhandled so that a
// terminal's ioctls keep working. Strict: a kernel that cannot enforce one of them refuses the run.
constexpr std::string_view fs_handled[] = {"execute",   "write_file", "read_file", "read_dir",  "remove_dir",
                                "remove_file", "make_char", "make_dir", "make_reg", "make_sock",
                                "make_fifo", "make_block", "make_sym",  "refer",     "truncate"};
constexpr std::string_view fs_read[] = {"execute", "read_file", "read_dir"};

void path_rule(JsonWriter& out, const auto& rights, const std::vector<std::string>& paths) {
    out.begin_object();
    write_strings(out, "allowedAccess", rights);
    write_strings(out, "paths", paths);
    out.end_object();
}

// --landlock-read/--landlock-write restrict the file system to what they name, plus what any program needs to
// start at all: reading and executing the system view (the host view and /etc, or the whole --rootfs), reading
// /proc, reading and writing the device nodes of /dev. --landlock-connect alone restricts TCP connect only.
void landlock(JsonWriter& out, const SandboxSettings& settings) {
    const bool fs = !settings.landlock_read.empty() || !settings.landlock_write.empty();
    const bool net = !settings.landlock_connect.empty();
    if (!fs && !net) return;
    out.key("landlock").begin_object();
    out.key("ruleset").begin_object();
    if (fs) write_strings(out, "handledAccessFS", fs_handled);
    if (net) write_strings(out, "handledAccessNetwork", Strings{"connect_tcp"});
    out.end_object();
    out.key("rules").begin_object();
    if (fs) {
        out.key("pathBeneath").begin_array();
        std::vector<std::string> system;
        if (settings.rootfs.empty()) {
            for (const SandboxBind& view : settings.host_view) system.push_back(view.destination);
            system.push_back("/etc");
        } else {
            system.push_back("/");
        }
        path_rule(out, fs_read, system);
        path_rule(out, Strings{"read_file", "read_dir"}, {"/proc"});
        path_rule(out, Strings{"read_file", "write_file", "read_dir", "truncate"}, {"/dev"});
        if (!settings.landlock_read.empty()) path_rule(out, fs_read, settings.landlock_read);
        if (!settings.landlock_write.empty()) path_rule(out, fs_handled, settings.landlock_write);
        out.end_array();
    }
    if (net) {
        out.key("netPort").begin_array().begin_object();
        write_strings(out, "allowedAccess", Strings{"connect_tcp"});
        out.key("ports").begin_array();
        for (std::uint16_t port : settings.landlock_connect) out.unsigned_integer(port);
        out.end_array().end_object().end_array();
    }
    out.end_object();
    out.key("disableBestEffort").boolean(true);
    out.end_object();
}

void process(JsonWriter& out, const SandboxSettings& settings) {
    out.key("process").begin_object();
    out.key("terminal").boolean(false);
    // nobody, with or without a user namespace: the sandboxed program owns nothing on the host.
    out.key("user").begin_object().key("uid").integer(sandbox_user).key("gid").integer(sandbox_user).end_object();
    write_strings(out, "args", settings.args);
    write_strings(out, "env", merged_env(settings.env));
    out.key("cwd").string(settings.cwd);
    // All five sets, ambient included: a process of uid 65534 keeps a capability across execve only through
    // the ambient set (capabilities(7)).
    out.key("capabilities").begin_object();
    for (std::string_view set : {"bounding", "effective", "inheritable", "permitted", "ambient"})
        write_strings(out, set, settings.caps);
    out.end_object();
    out.key("rlimits").begin_array();
    rlimit(out, "RLIMIT_NPROC", settings.nproc);
    // No core dumps: a piped kernel.core_pattern hands them to a root helper on the host (apport,
    // systemd-coredump, which honours this limit), and a plain one would fill /tmp.
    rlimit(out, "RLIMIT_CORE", 0);
    if (settings.nofile) rlimit(out, "RLIMIT_NOFILE", *settings.nofile);
    if (settings.fsize) rlimit(out, "RLIMIT_FSIZE", *settings.fsize);
    out.end_array();
    out.key("noNewPrivileges").boolean(true);
    landlock(out, settings);
    out.end_object();
}

void mounts(JsonWriter& out, const SandboxSettings& settings) {
    out.key("mounts").begin_array();
    // The host view first: its mount points are made in the tmpfs root (run.husk.root=tmpfs).
    for (const SandboxBind& view : settings.host_view) bind(out, view);
    for (const SandboxBind& file : settings.host_etc) bind(out, file);
    write_mount(out, "/proc", "proc", "proc", {"nosuid", "noexec", "nodev"});
    write_mount(out, "/dev", "tmpfs", "tmpfs", {"nosuid", "strictatime", "mode=755", "size=65536k"});
    write_mount(out, "/dev/pts", "devpts", "devpts", {"nosuid", "noexec", "newinstance", "ptmxmode=0666", "mode=0620"});
    const std::string inodes = "nr_inodes=" + std::to_string(tmpfs_inodes);
    write_mount(out, "/dev/shm", "tmpfs", "shm", {"nosuid", "noexec", "nodev", "mode=1777", "size=65536k", inodes});
    const std::string tmp_size = "size=" + std::to_string(settings.tmp_size / 1024) + "k";
    write_mount(out, "/tmp", "tmpfs", "tmpfs", {"nosuid", "nodev", "mode=1777", tmp_size, inodes});
    // Parents before what goes beneath them, whichever flag came first: --bind-rw /a:/x after --bind /b:/x/y
    // would cover /x/y. The flags' own order otherwise (stable).
    std::vector<SandboxBind> binds = settings.binds;
    std::stable_sort(binds.begin(), binds.end(), [](const SandboxBind& a, const SandboxBind& b) {
        return std::count(a.destination.begin(), a.destination.end(), '/') <
               std::count(b.destination.begin(), b.destination.end(), '/');
    });
    for (const SandboxBind& extra : binds) bind(out, extra);
    out.end_array();
}

void id_mapping(JsonWriter& out, std::string_view key, const std::vector<IdMapping>& maps) {
    out.key(key).begin_array();
    const std::vector<IdMapping> root_default = {{0, sandbox_host_id_base, sandbox_id_count}};
    for (const IdMapping& map : maps.empty() ? root_default : maps) {
        out.begin_object().key("containerID").unsigned_integer(map.container_id);
        out.key("hostID").unsigned_integer(map.host_id).key("size").unsigned_integer(map.size).end_object();
    }
    out.end_array();
}

void resources(JsonWriter& out, const SandboxSettings& settings) {
    out.key("resources").begin_object();
    // Deny every device but the runtime's defaults (null, zero, full, random, urandom, tty, ptmx).
    if (settings.device_rules) {
        out.key("devices").begin_array();
        out.begin_object().key("allow").boolean(false).key("access").string("rwm").end_object();
        out.end_array();
    }
    if (settings.memory) out.key("memory").begin_object().key("limit").integer(*settings.memory).end_object();
    if (settings.cpus) {
        // cpu.max "quota period": N CPUs are N periods of CPU time per period (the kernel's default 100 ms).
        constexpr std::uint64_t period = 100000;
        auto quota = static_cast<std::int64_t>(std::llround(*settings.cpus * period));
        out.key("cpu").begin_object().key("quota").integer(quota).key("period").unsigned_integer(period).end_object();
    }
    if (settings.pids) out.key("pids").begin_object().key("limit").integer(*settings.pids).end_object();
    out.end_object();
}

void linux(JsonWriter& out, const SandboxSettings& settings) {
    out.key("linux").begin_object();
    if (settings.userns) {
        id_mapping(out, "uidMappings", settings.uid_map);
        id_mapping(out, "gidMappings", settings.gid_map);
    }
    resources(out, settings);
    out.key("namespaces").begin_array();
    std::vector<std::string_view> types = {"pid", "ipc", "uts", "mount", "cgroup"};
    if (settings.net == SandboxNet::none) types.push_back("network");
    if (settings.userns) types.push_back("user");
    for (std::string_view type : types) out.begin_object().key("type").string(type).end_object();
    out.end_array();
    if (settings.seccomp == SandboxSeccomp::profile) out.key("seccomp").raw(settings.seccomp_json);
    write_strings(out, "maskedPaths",
            Strings{"/proc/acpi", "/proc/asound", "/proc/kcore", "/proc/keys", "/proc/latency_stats",
                    "/proc/timer_list", "/proc/timer_stats", "/proc/sched_debug", "/proc/scsi"});
    write_strings(out, "readonlyPaths", Strings{"/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys", "/proc/sysrq-trigger"});
    out.end_object();
}

}  // namespace

Result<SandboxBind> parse_sandbox_bind(std::string_view flag, const std::string& text, bool writable) {
    const std::string name = "--" + std::string(flag);
    const std::size_t colon = text.find(':');
    std::string source = text.substr(0, colon);
    std::string destination = colon == std::string::npos ? source : text.substr(colon + 1);
    if (source.empty() || destination.empty()) return fail_msg(name + ": want SRC[:DST], not \"" + text + "\"");
    if (destination[0] != '/') return fail_msg(name + ": DST must be an absolute path, not \"" + destination + "\"");
    // A ".." would be resolved inside the root, but says something else than where the bind lands.
    if (("/" + destination + "/").find("/../") != std::string::npos)
        return fail_msg(name + ": DST must not contain \"..\", not \"" + destination + "\"");
    return SandboxBind{std::move(source), std::move(destination), writable};
}

std::string sandbox_config_json(const SandboxSettings& settings) {
    JsonWriter out(settings.pretty ? JsonWriter::Style::pretty : JsonWriter::Style::compact);
    out.begin_object();
    out.key("ociVersion").string("1.3.0");
    process(out, settings);
    const bool tmpfs_root = settings.rootfs.empty();
    out.key("root").begin_object().key("path").string(tmpfs_root ? settings.tmpfs_root_at : settings.rootfs);
    out.key("readonly").boolean(true).end_object();
    out.key("hostname").string("sandbox");
    mounts(out, settings);
    // The settings in their annotations, as every config carries them: husk-init as pid 1, and the host view on
    // a tmpfs root.
    HuskSettings husk = settings.husk;
    husk.init = true;
    if (tmpfs_root) husk.root_tmpfs = true;
    out.key("annotations").begin_object();
    for (const auto& [key, value] : annotations_of({}, husk)) out.key(key).string(value);
    out.end_object();
    linux(out, settings);
    out.end_object();
    std::string json = out.str();
    if (!json.ends_with('\n')) json.push_back('\n');
    return json;
}

}  // namespace husk::spec
