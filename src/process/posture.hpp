// The verified posture (docs/security.md, "The verified posture"): after the last security step, init reads what is
// really in force (/proc/self/status: Seccomp, Seccomp_filters, NoNewPrivs, CapEff, CapBnd; the ABI Landlock
// enforced) and sends it to the parent, which fails the create when something requested is not in effect, and records
// the rest in the state (husk.security).
#pragma once

#include <cstdint>

#include "husk/error.hpp"

namespace husk::process {

// Plain data: it travels as the payload of a sync message.
struct Posture {
    int seccomp_mode = -1;     // 0 disabled, 1 strict, 2 filter
    int seccomp_filters = -1;  // filters attached (Linux 5.9+; -1 when the kernel does not say)
    int no_new_privs = -1;
    std::uint64_t cap_effective = 0;
    std::uint64_t cap_bounding = 0;
    int landlock_abi = 0;  // what landlock_restrict_self enforced; 0 = no Landlock domain
};

// Child side, allocation-free: parses /proc/self/status through `status_fd`, opened before seccomp was
// loaded and not read yet (after loading, a profile may deny open and pread; it hardly denies read).
Result<Posture> read_posture(int status_fd, int landlock_abi) noexcept;

// What the container asked for, from the plan.
struct ExpectedPosture {
    bool seccomp = false;
    bool no_new_privs = false;
    bool landlock = false;  // a Landlock domain must exist (the plan enforces something)
    std::uint64_t cap_effective = 0;
    std::uint64_t cap_bounding = 0;
};

// Parent side: an error naming each requested property that is not in force.
Result<void> check_posture(const Posture& posture, const ExpectedPosture& expected);

}  // namespace husk::process
