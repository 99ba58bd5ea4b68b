// What the monitor enforces (the run.husk.* limits with their defaults) and where it records what it did: the
// same for the detached monitor and `husk run`.
#pragma once

#include <chrono>
#include <csignal>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "cgroup/location.hpp"
#include "cgroup/net_maps.hpp"
#include "husk/container_id.hpp"
#include "husk/unique_fd.hpp"
#include "spec/settings.hpp"

namespace husk::monitor {

// run.husk.timeout, run.husk.kill-grace, run.husk.stop-signal, run.husk.output-limit, run.husk.cpu-limit
// with their defaults (docs/husk.8.md, "LIMITS").
struct StopPolicy {
    std::optional<std::chrono::milliseconds> timeout;
    std::chrono::milliseconds grace{5000};
    int stop_signal = SIGTERM;
    std::optional<std::uint64_t> output_limit;           // bytes of stdout+stderr together
    std::optional<std::chrono::microseconds> cpu_limit;  // CPU time of the whole cgroup
    std::optional<std::uint64_t> net_ops;                // network operations (run.husk.net-ops)
    bool net_ops_kill = false;                           // ... past which the container is stopped
};

StopPolicy stop_policy(const spec::HuskSettings& settings);

struct MonitorPlan {
    // The container whose record the monitor writes, <root>/<id>: named by its effective config, never by a path.
    std::string root;
    ContainerId id;
    StopPolicy policy;
    std::optional<std::string> tenant;  // run.husk.tenant: the ledger its end record goes to
    std::optional<cgroup::CgroupLocation> cgroup;  // nothing: the container has no cgroup
    // memory.events oom_kill when the monitor began (a reused cgroup may have history); nothing without a
    // memory controller. The verdict counts the rise from here.
    std::optional<std::uint64_t> oom_kills_before;
    // pids.events max then: forks refused at pids.max, reported as the factor `pids-limit`.
    std::optional<std::uint64_t> pids_max_before;
    // memory.events max then: memory.max reached, reported as the factor `memory-limit`.
    std::optional<std::uint64_t> memory_max_before;
    // The network policy's counter and events ring (cgroup/net_maps.hpp), when the container has a policy.
    std::shared_ptr<const cgroup::NetMaps> net;
    // The container's cgroup directory, held open from its creation: if the state dir is removed under the
    // running container, nobody else will delete the cgroup, and the monitor removes it, by its path once the
    // path is shown to name this very directory (record.hpp, remove_lost_cgroup).
    std::shared_ptr<const UniqueFd> held_cgroup;
};

}  // namespace husk::monitor
