// ContainerPlan: every module's prepared plan for one container init, built in the parent before clone3.
// The child reads it (its own copy-on-write view) and only makes system calls.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "apparmor/apparmor.hpp"
#include "caps/credentials.hpp"
#include "husk/unique_fd.hpp"
#include "hooks/hooks.hpp"
#include "landlock/landlock.hpp"
#include "mnt/rootfs.hpp"
#include "net/loopback.hpp"
#include "ns/namespaces.hpp"
#include "ns/uts.hpp"
#include "process/workload.hpp"
#include "process/posture.hpp"
#include "rlimit/rlimits.hpp"
#include "seccomp/filter.hpp"
#include "sysctl/sysctl.hpp"

namespace husk::process {

struct PlanOptions {
    std::string rootfs;  // absolute, resolved
    std::string bundle;
    bool no_pivot = false;
    int preserve_fds = 0;
    bool seccomp_skip_unknown = false;  // run.husk.seccomp-unknown-syscalls=skip-allowed
    bool husk_init = false;             // run.husk.init=true
    bool root_tmpfs = false;            // run.husk.root=tmpfs
    std::string cgroup2_mount{};        // mnt::RootfsOptions::cgroup2_mount
    bool rootless = false;              // husk runs without root (docs/rootless.md)
    std::optional<std::uint64_t> address_space{};  // run.husk.address-space: RLIMIT_AS of the container's process
    std::string seccomp_cache_root{};   // seccomp::SeccompOptions::cache_root: the state root, or none
};

// The security steps both recipes share (docs/security.md, "Order in the container's init"): linux.seccomp compiled,
// process.landlock against the kernel's ABI, process.apparmorProfile, and the posture the process must then report.
struct Confinement {
    landlock::LandlockPlan landlock;
    apparmor::AppArmorPlan apparmor;
    std::optional<seccomp::SeccompPlan> seccomp;
    ExpectedPosture expected;
};

struct ContainerPlan {
    ns::NamespacePlan namespaces;
    mnt::RootfsPlan rootfs;
    caps::CredentialsPlan credentials;
    rlimit::RlimitPlan rlimits;
    net::LoopbackPlan loopback;
    sysctl::SysctlPlan sysctl;
    hooks::ChildHooksPlan create_container_hooks;
    hooks::ChildHooksPlan start_container_hooks;
    // Some prestart, createRuntime, createContainer or startContainer hook is configured: init then asks the
    // parent to run the first two and send the state for the other two before pivot_root (child_main step 5).
    // Without any, that round trip is left out.
    bool setup_hooks = false;
    ns::UtsPlan uts;
    WorkloadPlan workload;
    // Landlock (enforce == false: none), seccomp (absent: no filter, also for an empty linux.seccomp) and what
    // init must report after the last security step.
    Confinement confinement;
    // run.husk.init: the sealed husk-init to execveat instead of the program, and its argv
    // ("husk-init", "--report-fd=N", "--", process.args..., NULL; pointing into workload.args). Without it: an empty fd.
    UniqueFd init;
    std::vector<char*> init_argv;
    // run.husk.init: a pipe on which husk-init reports the program's wait status before it exits, so that a
    // program killed by signal N is recorded as such: pid 1 of a pid namespace cannot die of its own signal
    // (pid_namespaces(7)), and its exit code 128 + N alone is also what `exit(128 + N)` gives. The write end
    // keeps its number in init, which passes it as `--report-fd=N` (init_report_arg, pointed to by init_argv).
    UniqueFd init_report_read;
    UniqueFd init_report_write;
    std::unique_ptr<char[]> init_report_arg;
};

Result<ContainerPlan> prepare_container(const spec::Spec& spec, const PlanOptions& options);

// The Confinement of a process with these credentials: create's init and `husk exec`'s process alike. With a
// state root, the seccomp program compiled there before for exactly this profile is loaded instead of
// compiled again (seccomp/cache.hpp).
Result<Confinement> prepare_confinement(const spec::Spec& spec, bool seccomp_skip_unknown,
                                        const caps::CredentialsPlan& credentials,
                                        const std::string& seccomp_cache_root = {});

// The child's scratch space: received hook state JSON. Lives in the parent's memory before clone3, so the child
// never allocates.
struct ChildBuffers {
    std::array<char, 65536> state_json{};
};

}  // namespace husk::process
