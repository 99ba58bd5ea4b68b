// The config.json `husk sandbox` runs (docs/husk.8.md, SANDBOX): built as text from settings the CLI parsed
// and the host facts the container layer gathered, so it goes through the same parse and validation as a
// bundle's config, and `--print-config` shows exactly what runs. Pure: no system calls.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "husk/error.hpp"
#include "husk/settings.hpp"
#include "husk/spec.hpp"

namespace husk::spec {

// Container ids 0..65535 map to host ids from here in the sandbox's user namespace. 2^30 is far above every id
// Debian hands out (system accounts below 1000, users below 60000, systemd's dynamic users 61184-65519, nobody
// 65534; useradd's subordinate ranges for podman/docker run from 100000 to at most 600100000), so a sandbox's
// files and processes never belong to a host account. It lies in what systemd documents as the container
// range (0x80000-0x6FFFFFFF), where systemd-nspawn -U picks its own ranges: a host running such containers
// could share ids with them (docs/husk.8.md, SANDBOX).
inline constexpr std::uint32_t sandbox_host_id_base = 1u << 30;
inline constexpr std::uint32_t sandbox_id_count = 65536;
// The sandbox's user and group inside: nobody/nogroup.
inline constexpr std::uint32_t sandbox_user = 65534;
// The defaults of --nproc and --tmp-size: room for a build or a test suite, far below what hurts the host.
inline constexpr std::uint64_t default_nproc = 1024;
inline constexpr std::uint64_t default_tmp_size = 256ull << 20;
// The inodes of /tmp and /dev/shm: empty files cost no bytes, so size= alone does not bound them.
inline constexpr std::uint64_t tmpfs_inodes = 65536;
inline constexpr const char* sandbox_default_path = "/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin";

struct SandboxBind {
    std::string source;       // host path (made absolute by the container layer, sandbox_config_json)
    std::string destination;  // absolute container path
    bool writable = false;
};

enum class SandboxNet { none, host };
enum class SandboxSeccomp { profile, unconfined };  // profile: seccomp_json (husk's default or --seccomp FILE)

struct SandboxSettings {
    std::vector<std::string> args;  // PROGRAM ARGS...
    // Without --rootfs: the host view, read-only binds of the host's /usr, /bin, /lib* (the container layer
    // lists those that exist, /bin of a merged /usr as a bind of /usr/bin), on a tmpfs root mounted over
    // tmpfs_root_at; with --rootfs the directory itself, read-only, and no host view.
    std::string rootfs;
    std::string tmpfs_root_at;
    std::vector<SandboxBind> host_view;
    std::vector<SandboxBind> host_etc;  // host files bound read-only into /etc (ld.so.cache; resolv.conf, hosts)
    std::vector<SandboxBind> binds;     // --bind / --bind-rw, after the view
    std::string cwd = "/";
    std::vector<std::string> env;  // K=V in order; a later value of a name wins
    bool userns = true;
    // The user namespace's maps. Empty: root's, ids 0-65535 from sandbox_host_id_base. Without root the container
    // layer fills them (docs/rootless.md): the caller's own id as 0 and its subordinate range as 1-65535, or the
    // caller's own id alone as the sandbox user.
    std::vector<IdMapping> uid_map, gid_map;
    // linux.resources.devices (deny all but the runtime's defaults). Without root no device program can be
    // attached, and none is needed: a user namespace cannot mknod, and /dev holds only those defaults.
    bool device_rules = true;
    SandboxNet net = SandboxNet::none;
    SandboxSeccomp seccomp = SandboxSeccomp::profile;
    std::string seccomp_json;       // a linux.seccomp object, already checked to be one
    // The layout of the text: --print-config's is laid out to be read; the one run is compact (a third of the
    // bytes to write and parse again, the same config).
    bool pretty = true;
    std::vector<std::string> caps;  // "CAP_NET_RAW", in every set
    HuskSettings husk;  // the flags that are husk settings (--timeout, --net-allow, ...), as the CLI parsed them
    std::optional<std::int64_t> memory;              // bytes
    std::optional<std::int64_t> pids;
    std::optional<double> cpus;                      // CPUs of rate
    std::optional<std::uint64_t> nofile;
    std::optional<std::uint64_t> fsize;  // bytes
    // Ceilings that hold on every host, flags or not (docs/security.md, "husk sandbox threat model"): a fork
    // bomb meets RLIMIT_NPROC, counted per user namespace and uid, where --pids needs cgroup v2; /tmp is a
    // tmpfs capped in bytes and inodes (a plain tmpfs may take half the RAM, uncharged without a memory cgroup).
    std::uint64_t nproc = default_nproc;
    std::uint64_t tmp_size = default_tmp_size;  // bytes
    std::vector<std::string> landlock_read, landlock_write;
    std::vector<std::uint16_t> landlock_connect;
};

// `--bind`/`--bind-rw` (`flag`) SRC[:DST]: DST (SRC when absent) must be an absolute path without "..", which
// mnt would resolve inside the root anyway but which says something else than where the bind lands. SRC is
// kept as given; errors name the flag.
Result<SandboxBind> parse_sandbox_bind(std::string_view flag, const std::string& text, bool writable);

// config.json text, pretty-printed, ending in a newline.
std::string sandbox_config_json(const SandboxSettings& settings);

}  // namespace husk::spec
