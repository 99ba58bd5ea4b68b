// linux.seccomp with every name resolved and checked: the input of the libseccomp compile (filter.cpp).
// Errors name the field path. Not a public header.
#pragma once

#include <seccomp.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "husk/error.hpp"
#include "husk/spec.hpp"
#include "seccomp/filter.hpp"
#include "seccomp/names.hpp"

namespace husk::seccomp {

struct Action {
    ActionKind kind = ActionKind::kill_process;
    std::uint32_t value = 0;  // SCMP_ACT_* including its data (errno, trace message)
};

struct Rule {
    std::size_t entry = 0;  // index into linux.seccomp.syscalls
    std::string name;
    int number = 0;  // libseccomp's number for the native arch (negative for its pseudo syscalls)
    Action action;
    // Each alternative becomes one libseccomp rule whose comparisons all must hold (AND); the alternatives
    // together match when any does (OR). Empty = one unconditional rule.
    std::vector<std::vector<scmp_arg_cmp>> alternatives;
};

struct Profile {
    Action default_action;
    std::uint32_t flags = 0;
    bool uses_notify = false;
    std::vector<std::uint32_t> architectures;  // SCMP_ARCH_* tokens in config order
    std::vector<Rule> rules;                   // without the ones that repeat the default action
    std::vector<std::string> known_names;      // every resolvable name the profile mentions (ENOSYS limits)
    std::vector<std::string> skipped_names;    // unknown names dropped under UnknownSyscalls::skip_allowed
    std::vector<SeccompResolution> resolutions;  // conflicting unconditional rules, settled to the strictest
};

Result<Profile> resolve_profile(const spec::Seccomp& seccomp, const SeccompOptions& options);

// Whether default_action stops a call (errno, trap, kill): then the ENOSYS stub applies. ALLOW, LOG and
// TRACE let calls through (a tracer is expected to handle new syscalls itself, as in runc).
bool default_denies(const Action& default_action);

}  // namespace husk::seccomp
