// Shared by the Landlock tests that run against the real kernel: each enforces a plan in a forked child
// (Landlock domains are inherited and irreversible, so the test process itself stays unrestricted) and
// reports what the child could do.
#pragma once

#include <sys/prctl.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <cstdint>

#include "base/run_in_child.hpp"
#include "husk/unique_fd.hpp"
#include "landlock/landlock.hpp"

namespace husk::landlock::test {

using Landlock = husk::spec::Landlock;
using Access = Landlock::Access;

inline Access named(const char* name) { return {name, 0}; }
inline Access number(std::uint64_t bits) { return {{}, bits}; }

// What the child saw: whether the plan applied (else why), and errno (0 = success) of up to four attempts.
struct Outcome {
    bool applied = false;
    husk::Error error;
    int abi = 0;
    int err[4] = {-1, -1, -1, -1};
};

inline int attempt(long rc) { return rc < 0 ? errno : 0; }

// Enforces the plan the way the container recipe does (no_new_privs first), then runs the attempts.
template <typename Attempts>
Outcome enforce_then(const LandlockPlan& plan, Attempts attempts) {
    return husk::run_in_child<Outcome>([&] {
        Outcome out;
        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return out;
        auto applied = husk::landlock::apply_landlock(plan);
        if (!applied) {
            out.error = applied.error();
            return out;
        }
        out.applied = true;
        out.abi = *applied;
        attempts(out.err);
        return out;
    });
}

inline LandlockPlan prepare(const Landlock& config) {
    auto abi = husk::landlock::probe_abi();
    REQUIRE(abi);
    auto plan = husk::landlock::prepare_landlock(config, *abi);
    if (!plan) FAIL(plan.error().message());
    return *plan;
}

// Skips a test on kernels whose ABI predates what it exercises.
inline bool kernel_has_abi(int needed) {
    auto abi = husk::landlock::probe_abi();
    REQUIRE(abi);
    if (*abi >= needed) return true;
    WARN("the kernel's Landlock ABI is " << *abi << ", this test needs " << needed);
    return false;
}

}  // namespace husk::landlock::test
