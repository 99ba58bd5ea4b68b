// Spec: config.json (runtime-spec 1.3.0) as plain structs. Parsing fills these; validation checks them;
// feature modules read them. No behaviour lives here.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace husk::spec {

struct Root {
    std::string path;
    bool readonly = false;
};

struct User {
    std::uint32_t uid = 0;
    std::uint32_t gid = 0;
    std::optional<std::uint32_t> umask;
    std::vector<std::uint32_t> additional_gids;
};

// Capability names exactly as in config.json ("CAP_CHOWN"); resolved by the caps module.
struct Capabilities {
    std::optional<std::vector<std::string>> bounding, effective, inheritable, permitted, ambient;
};

struct Rlimit {
    std::string type;  // "RLIMIT_NOFILE"
    std::uint64_t hard = 0;
    std::uint64_t soft = 0;
};

struct ConsoleSize {
    std::uint32_t height = 0;
    std::uint32_t width = 0;
};

// process.landlock, in the shape of the open runtime-spec proposal (PR #1241; docs/landlock.md). Access rights
// and scopes stay as written (a name such as "read_file", or a JSON number = the kernel's raw bit mask);
// the landlock module resolves them against the kernel's ABI.
struct Landlock {
    struct Access {
        std::string name;        // "read_file"; empty when the config gave a number
        std::uint64_t bits = 0;  // the number as written, when name is empty
    };
    struct PathBeneath {
        std::vector<Access> allowed_access;
        std::vector<std::string> paths;  // container paths, opened after pivot_root
    };
    struct NetPort {
        std::vector<Access> allowed_access;
        std::vector<std::uint16_t> ports;
    };
    std::vector<Access> handled_access_fs, handled_access_network, scoped;  // ruleset.*
    std::vector<PathBeneath> path_beneath;                                  // rules.pathBeneath
    std::vector<NetPort> net_port;                                          // rules.netPort
    // Absent: strict, husk's default (every requested right is required). false: best effort (drop what the
    // kernel lacks, record it). true: strict, as the proposal means it.
    std::optional<bool> disable_best_effort;
};

struct Process {
    bool terminal = false;
    std::optional<ConsoleSize> console_size;
    User user;
    std::vector<std::string> args;
    std::vector<std::string> env;
    std::string cwd;
    Capabilities capabilities;
    std::vector<Rlimit> rlimits;
    bool no_new_privileges = false;
    std::optional<int> oom_score_adj;
    std::string apparmor_profile;  // not implemented: non-empty is refused
    std::string selinux_label;     // not implemented: non-empty is refused
    std::optional<Landlock> landlock;
};

struct IdMapping {
    std::uint32_t container_id = 0;
    std::uint32_t host_id = 0;
    std::uint32_t size = 0;
};

struct Mount {
    std::string destination;
    std::string type;
    std::string source;
    std::vector<std::string> options;
    std::vector<IdMapping> uid_mappings;  // idmapped mounts: not implemented, refused when present
    std::vector<IdMapping> gid_mappings;
};

struct Hook {
    std::string path;
    std::vector<std::string> args;
    std::vector<std::string> env;
    std::optional<int> timeout;  // seconds, > 0
};

struct Hooks {
    std::vector<Hook> prestart, create_runtime, create_container, start_container, poststart, poststop;
};

struct Namespace {
    std::string type;  // "pid", "network", "mount", "ipc", "uts", "user", "cgroup", "time"
    std::string path;  // join this namespace instead of creating one
};

struct TimeOffset {
    std::int64_t secs = 0;
    std::uint32_t nanosecs = 0;
};

struct Device {
    std::string type;  // "c", "b", "u", "p"
    std::string path;
    std::int64_t major = 0;
    std::int64_t minor = 0;
    std::optional<std::uint32_t> file_mode;
    std::optional<std::uint32_t> uid;
    std::optional<std::uint32_t> gid;
};

// linux.resources.devices[]: the device allow-list (an eBPF program on cgroup v2).
struct DeviceRule {
    bool allow = false;
    std::string type;  // "a", "c", "b" or empty (= all)
    std::optional<std::int64_t> major, minor;  // absent = wildcard
    std::string access;  // subset of "rwm"; empty = "rwm"
};

struct MemoryResources {
    std::optional<std::int64_t> limit, reservation, swap, kernel, kernel_tcp;
    std::optional<std::uint64_t> swappiness;
    std::optional<bool> disable_oom_killer, use_hierarchy, check_before_update;
};

struct CpuResources {
    std::optional<std::uint64_t> shares, period, realtime_period;
    std::optional<std::int64_t> quota, realtime_runtime, burst, idle;
    std::string cpus, mems;
};

struct WeightDevice {
    std::int64_t major = 0, minor = 0;
    std::optional<std::uint16_t> weight, leaf_weight;
};

struct ThrottleDevice {
    std::int64_t major = 0, minor = 0;
    std::uint64_t rate = 0;
};

struct BlockIoResources {
    std::optional<std::uint16_t> weight, leaf_weight;
    std::vector<WeightDevice> weight_device;
    std::vector<ThrottleDevice> throttle_read_bps_device, throttle_write_bps_device,
        throttle_read_iops_device, throttle_write_iops_device;
};

struct HugepageLimit {
    std::string page_size;  // "2MB"
    std::uint64_t limit = 0;
};

struct Resources {
    std::vector<DeviceRule> devices;
    std::optional<MemoryResources> memory;
    std::optional<CpuResources> cpu;
    std::optional<std::int64_t> pids_limit;
    std::optional<BlockIoResources> block_io;
    std::vector<HugepageLimit> hugepage_limits;
    std::map<std::string, std::string> unified;
    bool has_network = false;  // linux.resources.network (classID/priorities): cgroup v1 only
    bool has_rdma = false;     // linux.resources.rdma
};

// linux.seccomp (config-linux.md "Seccomp"). Actions, architectures, operators and flags stay as written
// ("SCMP_ACT_ERRNO"); the seccomp module resolves them and names the field path of anything unknown.
struct Seccomp {
    struct Arg {
        std::uint32_t index = 0;
        std::uint64_t value = 0;
        std::uint64_t value_two = 0;
        std::string op;  // "SCMP_CMP_EQ"
    };
    struct Syscall {
        std::vector<std::string> names;
        std::string action;
        std::optional<std::uint32_t> errno_ret;
        std::vector<Arg> args;
    };
    std::string default_action;
    std::optional<std::uint32_t> default_errno_ret;
    std::vector<std::string> architectures;
    std::vector<std::string> flags;  // "SECCOMP_FILTER_FLAG_LOG"
    std::string listener_path;       // unix socket that receives the notify fd (SCMP_ACT_NOTIFY)
    std::string listener_metadata;
    std::vector<Syscall> syscalls;
};

struct Linux {
    std::vector<Namespace> namespaces;
    std::vector<IdMapping> uid_mappings, gid_mappings;
    std::map<std::string, TimeOffset> time_offsets;  // "monotonic", "boottime"
    std::vector<Device> devices;
    std::string cgroups_path;
    std::optional<Resources> resources;
    std::string rootfs_propagation;  // "", "private", "rprivate", "slave", "rslave", "shared", "rshared", "unbindable", "runbindable"
    std::vector<std::string> masked_paths;
    std::vector<std::string> readonly_paths;
    std::map<std::string, std::string> sysctl;
    std::string mount_label;  // SELinux: not implemented, non-empty refused
    std::optional<Seccomp> seccomp;
};

struct Spec {
    std::string oci_version;
    Root root;
    std::optional<Process> process;
    std::string hostname;
    std::string domainname;
    std::vector<Mount> mounts;
    Hooks hooks;
    std::map<std::string, std::string> annotations;
    std::optional<Linux> linux;

    // Fields of the runtime-spec that husk recognises but does not implement (yet), by JSON path, e.g.
    // "linux.seccomp", "linux.intelRdt". Validation refuses a spec where this is not empty (fail closed).
    std::vector<std::string> unsupported;
    // Properties ignored as config.md "Extensibility" says, but likely a mistake (an unknown hook kind):
    // one message each, "hooks.prestrat: unknown hook kind, ignored (...)", for the CLI to warn about.
    std::vector<std::string> ignored;
};

}  // namespace husk::spec
