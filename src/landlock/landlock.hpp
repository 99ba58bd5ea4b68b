// process.landlock (runtime-spec proposal PR #1241; docs/landlock.md): rights resolved against the kernel's
// Landlock ABI in the parent, the ruleset built and enforced in the container child after pivot_root,
// credentials and no_new_privs, before seccomp.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "husk/error.hpp"
#include "husk/spec.hpp"

namespace husk::landlock {

// The kernel's Landlock ABI version: landlock_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION).
// 0 when Landlock is not built in (ENOSYS) or not enabled at boot (EOPNOTSUPP).
Result<int> probe_abi();

struct LandlockPlan {
    struct PathRule {
        std::uint64_t allowed = 0;
        std::string path;   // absolute container path, opened O_PATH in the child
        std::string field;  // "process.landlock.rules.pathBeneath[0].paths[1]", for the child's errors
    };
    struct PortRule {
        std::uint64_t allowed = 0;
        std::uint64_t port = 0;
        std::string field;  // "process.landlock.rules.netPort[0].ports[0]"
    };

    bool enforce = false;  // false: nothing to apply (no Landlock asked, or best effort without kernel support)
    int abi = 0;           // the kernel's ABI the plan was checked against
    bool best_effort = false;
    std::uint64_t handled_fs = 0, handled_net = 0, scoped = 0;
    std::vector<PathRule> path_rules;
    std::vector<PortRule> port_rules;
    // Best effort only: the rights and scopes the kernel's ABI lacks, dropped, for the state
    // ("ioctl_dev", "bind_tcp", "signal", "handledAccessFS bit 20"), in config order, without repeats.
    std::vector<std::string> dropped;
};

// Maps names and numeric masks to the kernel's bits and checks them against `abi` (from probe_abi).
// Strict (disableBestEffort absent or true): every right or scope the ABI lacks is an error listing all of
// them; no Landlock at all (abi 0) is an error. Best effort (disableBestEffort: false): they are dropped and
// recorded in `dropped`; rules left with nothing allowed are skipped. Always errors: an unknown name, a
// relative path, a rule allowing what the ruleset does not handle, an empty rule or ruleset.
Result<LandlockPlan> prepare_landlock(const spec::Landlock& config, int abi);

// In the container child (allocation-free): create the ruleset, add one rule per path (opened
// O_PATH|O_CLOEXEC here, inside the container; a missing one is an error naming it and its field) and per
// port, and enforce it with landlock_restrict_self. Returns the ABI enforced, 0 when the plan enforces
// nothing. The caller has set no_new_privs (or holds CAP_SYS_ADMIN in its user namespace); without, EPERM.
Result<int> apply_landlock(const LandlockPlan& plan) noexcept;

// What husk can enforce at `abi`, by name, for `husk features`.
struct SupportedRights {
    std::vector<std::string> access_fs, access_network, scoped;
};
SupportedRights supported_rights(int abi);

}  // namespace husk::landlock
