// Credentials of the container process: capability sets, uid/gid, supplementary groups and umask
// (runtime-spec config.md "POSIX-platform User", "Linux Process" capabilities).
// prepare_credentials resolves names to numbers in the parent; the apply_* steps run in the container
// child, in the order docs/security.md gives: bounding → ids → capabilities (→ no_new_privs, ...).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "husk/error.hpp"
#include "husk/spec.hpp"

namespace husk::caps {

// One bit per capability number (CAP_CHOWN = bit 0). The kernel has fewer than 64 capabilities.
struct CapabilitySets {
    std::uint64_t bounding = 0;
    std::uint64_t effective = 0;
    std::uint64_t permitted = 0;
    std::uint64_t inheritable = 0;
    std::uint64_t ambient = 0;
};

struct CredentialsPlan {
    CapabilitySets sets;
    int last_cap = 0;  // /proc/sys/kernel/cap_last_cap: the highest capability the running kernel knows
    // "CAP_CHOWN", ... indexed by number up to last_cap, so apply can name a capability without allocating.
    std::vector<std::string> names;
    uid_t uid = 0;
    gid_t gid = 0;
    std::vector<gid_t> additional_gids;
    mode_t umask = 022;
    // Ambient capabilities of a non-root user that the kernel could not raise (not both permitted and
    // inheritable), left out of `sets.ambient`: the caller warns, as runc does (fewer privileges, not weaker
    // confinement).
    std::vector<std::string> ambient_dropped;
};

// Resolves process.capabilities and process.user. Absent capabilities (the whole object or one set) mean
// an empty set, as runc does (it starts from an empty configs.Capabilities when the spec has none): the
// container gets no capability it was not given. Unknown names, and capabilities newer than the running
// kernel, are errors (husk fails closed, where runtime-spec 1.1 would only warn). Combinations capset(2)
// would refuse are reported here, naming the entry: effective ⊆ permitted, inheritable ⊆ bounding
// (capabilities(7)). An ambient capability PR_CAP_AMBIENT_RAISE cannot raise (not in permitted ∩ inheritable) is
// left out, as runc leaves it out with a warning: it is named in ambient_dropped for a non-root user, and dropped
// without a word for root, whose ambient set does not matter.
// user.umask absent means 0022, as runc sets.
Result<CredentialsPlan> prepare_credentials(const spec::Process& process);

// Drops every capability not listed in process.capabilities.bounding from the bounding set
// (prctl PR_CAPBSET_DROP). Needs CAP_SETPCAP; runs before the uid change, which would lose it.
Result<void> apply_bounding(const CredentialsPlan& plan) noexcept;

// PR_SET_KEEPCAPS (so the permitted set survives leaving uid 0), setgroups(additionalGids), setresgid,
// setresuid. In a user namespace whose /proc/self/setgroups is "deny", an empty additionalGids is
// accepted (nothing can be set, as runc) and a non-empty one is a clear error.
Result<void> apply_ids(const CredentialsPlan& plan) noexcept;

// capset(2) effective/permitted/inheritable, then the ambient set (cleared, then raised one by one).
Result<void> apply_capabilities(const CredentialsPlan& plan) noexcept;

void apply_umask(const CredentialsPlan& plan) noexcept;

}  // namespace husk::caps
