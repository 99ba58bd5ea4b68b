// `husk exec`: a process started in a running container. The plan is built in the parent from the stored
// config.json with the exec's process; exec_main is its recipe (runc's setns init beside its standard init),
// spawn_exec clones it into the container's namespaces and cgroup and returns once it has exec'd.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>

#include "caps/credentials.hpp"
#include "husk/error.hpp"
#include "husk/spec.hpp"
#include "husk/unique_fd.hpp"
#include "ns/join_init.hpp"
#include "process/container_plan.hpp"
#include "process/workload.hpp"
#include "process/posture.hpp"
#include "process/spawn.hpp"
#include "rlimit/rlimits.hpp"

namespace husk::process {

struct ExecProcessPlan {
    int init_pidfd = -1;            // borrowed, verified by the caller: the child's setns(2) target
    ns::InitNamespaces namespaces;  // what differs from ours: setns flags, pid/time for children
    UniqueFd init_root;             // init's root directory (after its pivot_root or chroot), O_PATH
    caps::CredentialsPlan credentials;
    rlimit::RlimitPlan rlimits;
    WorkloadPlan workload;  // process.args of the exec'd process (the config's with runc's flags, or --process)
    Confinement confinement;
    std::optional<int> oom_score_adj;  // process.oomScoreAdj, written by the parent before `go`
};

// `spec` is the container's stored config.json with process replaced by the exec's. init_pidfd must name
// init, pid its pid: after the namespace files and the root are opened, init is checked to be still alive
// through the pidfd, so they are its own and not a recycled pid's. `rootless`: husk runs without root, and the
// spawner joins init's user namespace itself (ns::InitNamespaces::spawner_user).
Result<ExecProcessPlan> prepare_exec_process(const spec::Spec& spec, int init_pidfd, pid_t init, int preserve_fds,
                                             bool seccomp_skip_unknown, bool rootless);

struct ExecSpawnOptions {
    int cgroup_fd = -1;       // CLONE_INTO_CGROUP when >= 0 (the container's cgroup or a sub-cgroup of it)
    int console_socket = -1;  // where the pty master goes, when process.terminal
    ConsoleTarget console_target = ConsoleTarget::socket;  // spawner: kept in ExecSpawned::console (the relay)
    std::string state_json;   // the container's OCI state, for a seccomp agent at linux.seccomp.listenerPath
};

struct ExecSpawned {
    pid_t pid = 0;
    UniqueFd pidfd;
    Posture posture;
    UniqueFd console;  // the pty master, with ConsoleTarget::spawner and process.terminal
};

// Clones the process (our child), drives it through its setup and returns once execve succeeded; a failure
// in the child (a missing executable: runc's "exec: \"/x\": stat /x: no such file or directory") comes back
// as the error, after the child is reaped.
Result<ExecSpawned> spawn_exec(const ExecProcessPlan& plan, const ExecSpawnOptions& options);

// The child: never returns.
[[noreturn]] void exec_main(const ExecProcessPlan& plan, int sync, int parent_end) noexcept;

}  // namespace husk::process
