// husk's own limits, configured through `run.husk.*` annotations (docs/husk.8.md, "LIMITS") so that orchestrators can
// pass them; `husk run`/`create` flags set the same annotations. An unknown `run.husk.*` key or a malformed
// value is an error naming the annotation (fail closed); other annotations are not husk's business.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "husk/error.hpp"
#include "spec/net_allow.hpp"

namespace husk::spec {

inline constexpr std::string_view husk_annotation_prefix = "run.husk.";

struct HuskAnnotations {
    std::optional<std::chrono::milliseconds> timeout;     // run.husk.timeout: wall time from `start`, > 0
    std::optional<std::chrono::milliseconds> kill_grace;  // run.husk.kill-grace: stop signal → kill, ≥ 0
    std::optional<int> stop_signal;                       // run.husk.stop-signal: first signal at the deadline
    std::optional<std::uint64_t> output_limit;            // run.husk.output-limit: stdout+stderr bytes, > 0
    std::optional<std::chrono::microseconds> cpu_limit;   // run.husk.cpu-limit: cgroup cpu.stat usage_usec, > 0
    std::optional<bool> oom_group;                        // run.husk.oom-group: memory.oom.group (default on)
    // run.husk.seccomp-unknown-syscalls: "error" (default) or "skip-allowed": drop syscall names libseccomp
    // does not know where that cannot let a call through (see src/seccomp/filter.hpp).
    bool seccomp_skip_unknown = false;
    // run.husk.init=true: pid 1 is husk's minimal init (src/init/husk_init.cpp), which runs process.args as
    // its child, forwards signals, reaps orphans and exits with the program's status, as podman's --init.
    bool init = false;
    // run.husk.root=tmpfs: the container's root is a fresh tmpfs mounted over root.path inside the container's
    // own mount namespace (root.path only names where; nothing of it is seen or written), holding the mount
    // points of mounts[] and husk's minimal /etc/passwd and /etc/group (root, nobody 65534). `husk sandbox`
    // builds its host view on it, so that no mount point is ever created in a host directory. Default "bind":
    // root.path itself, bound onto itself.
    bool root_tmpfs = false;
    // run.husk.tenant: the tenant whose ledger the run is charged to (docs/tenants.md); named like a container.
    std::optional<std::string> tenant;
    // run.husk.net-allow: the only TCP/UDP destinations the container may connect or send to (comma-separated
    // CIDR[:PORT], or "none"); enforced by cgroup BPF programs (docs/network-policy.md).
    std::optional<NetAllow> net_allow;
    // run.husk.net-ops: a budget of outgoing connects and addressed sends (> 0); past it they fail with EPERM.
    std::optional<std::uint64_t> net_ops;
    // run.husk.net-ops-kill=true: the first operation past the budget stops the container, reason network-limit.
    bool net_ops_kill = false;
};

// Every run.husk.* annotation husk understands, in the order its documentation lists them.
const std::vector<std::string_view>& known_husk_annotations();

// "30s", "500ms", "2m", "1h", "250us", decimals allowed ("1.5s"); a bare "0" is zero. Whole microseconds.
Result<std::chrono::microseconds> parse_duration(std::string_view text);

// Reads one run.husk.* annotation (key starts with husk_annotation_prefix) into out. The error is the reason
// alone ("must be greater than 0"), so each caller names the source: the annotation, or the CLI's flag.
Result<void> parse_husk_annotation(std::string_view key, const std::string& value, HuskAnnotations& out);
// Reads every run.husk.* annotation. Errors name the annotation: `annotations["run.husk.timeout"]: ...`.
Result<HuskAnnotations> parse_husk_annotations(const std::map<std::string, std::string>& annotations);

}  // namespace husk::spec
