// husk's own settings beyond the runtime-spec, typed (docs/husk.8.md, ANNOTATIONS): each is one `run.husk.<name>`
// annotation of config.json and, for most, a flag `--<name>` of run, create and sandbox, two spellings of one
// setting. The library takes what the command line set as CreateOptions::overrides (husk/container.hpp); the
// table that reads and writes them is src/spec/settings.hpp.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace husk::spec {

// One destination network: an IPv4 or IPv6 prefix, and one port or every port.
struct NetAllowEntry {
    enum class Family { ipv4, ipv6 };
    Family family = Family::ipv4;
    std::array<std::uint8_t, 16> address{};  // network byte order; IPv4 uses the first 4 bytes
    unsigned prefix = 0;                     // bits, ≤ 32 or ≤ 128; bits past it are zero
    std::optional<std::uint16_t> port;       // nullopt: every port

    bool operator==(const NetAllowEntry&) const = default;
};

// A policy: only these destinations (an empty list, written "none", allows none at all).
struct NetAllow {
    std::vector<NetAllowEntry> entries;
    bool operator==(const NetAllow&) const = default;
};

// Every field is absent unless its annotation or flag set it; the defaults live with whoever reads the field.
struct HuskSettings {
    std::optional<std::chrono::milliseconds> timeout;     // wall time from `start`, > 0
    std::optional<std::chrono::milliseconds> kill_grace;  // stop signal → kill, ≥ 0 (default 5s)
    std::optional<int> stop_signal;                       // first signal at the deadline (default SIGTERM)
    std::optional<std::uint64_t> output_limit;            // stdout+stderr bytes, > 0
    std::optional<std::chrono::microseconds> cpu_limit;   // the cgroup's cpu.stat usage_usec, > 0
    std::optional<bool> oom_group;                        // memory.oom.group (default on)
    // "skip-allowed": drop syscall names libseccomp does not know where that cannot let a call through
    // (src/seccomp/filter.hpp); "error" (default) refuses them.
    std::optional<bool> seccomp_skip_unknown;
    // pid 1 is husk's minimal init (src/init/husk_init.cpp), which runs process.args as its child, forwards
    // signals, reaps orphans and exits with the program's status, as podman's --init.
    std::optional<bool> init;
    // "tmpfs": the container's root is a fresh tmpfs mounted over root.path inside the container's own mount
    // namespace (root.path only names where; nothing of it is seen or written), holding the mount points of
    // mounts[] and husk's minimal /etc/passwd and /etc/group. `husk sandbox` builds its host view on it, so that
    // no mount point is ever created in a host directory. Default "bind": root.path itself, bound onto itself.
    std::optional<bool> root_tmpfs;
    std::optional<std::string> tenant;  // the tenant's ledger the run is charged to (docs/tenants.md)
    // The only TCP/UDP destinations the container may connect or send to; cgroup BPF (docs/network-policy.md).
    std::optional<NetAllow> net_allow;
    std::optional<std::uint64_t> net_ops;  // a budget of connects and addressed sends, > 0; past it EPERM
    std::optional<bool> net_ops_kill;      // the first operation past the budget stops the container
    // The container dies with the process that ran `husk create`/`husk run` (docs/ARCHITECTURE.md, `husk run`).
    std::optional<bool> die_with_parent;
    // RLIMIT_AS, soft and hard, of the container's process (bytes, > 0): a per-process address-space ceiling
    // where no cgroup memory controller is there to count memory; never set unless asked for (husk(8), LIMITS).
    std::optional<std::uint64_t> address_space;

    bool operator==(const HuskSettings&) const = default;
};

}  // namespace husk::spec
