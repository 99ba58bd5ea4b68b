// linux.seccomp → a BPF program, compiled in the parent with libseccomp (prepare_seccomp) and loaded in the
// container child with one seccomp(2) call (apply_seccomp), the last step before execve
// (docs/security.md, "Order in the container's init").
#pragma once

#include <linux/filter.h>

#include <cstdint>
#include <string>
#include <vector>

#include "husk/error.hpp"
#include "husk/spec.hpp"

namespace husk::seccomp {

// What to do with a syscall name libseccomp does not know (runtime-spec#972: runc drops such names
// silently, which turns a deny rule into nothing).
enum class UnknownSyscalls {
    error,         // husk's default: every unknown name is an error naming it
    skip_allowed,  // opt-in: drop unknown names only where that cannot let a call through, i.e. in rules
                   // that allow (SCMP_ACT_ALLOW/LOG) under a denying default action, or that repeat the
                   // default action; an unknown name in any other rule is still an error
};

struct SeccompOptions {
    UnknownSyscalls unknown_syscalls = UnknownSyscalls::error;
    // The state root whose cache of compiled programs to use (seccomp/cache.hpp); empty: compile every time.
    std::string cache_root{};
};

// Unconditional rules for one syscall with different actions: husk keeps the strictest (docs/security.md,
// "Conflicting rules") and records it here, for husk.security.seccompResolved.
struct SeccompResolution {
    std::string syscall;
    std::string kept;                  // "syscalls[15]: SCMP_ACT_ERRNO (errnoRet 1)"
    std::vector<std::string> dropped;  // "syscalls[1]: SCMP_ACT_ALLOW"
};

struct SeccompPlan {
    std::vector<sock_filter> program;  // the ENOSYS stub (when used) followed by libseccomp's program
    std::uint32_t flags = 0;           // SECCOMP_FILTER_FLAG_* from linux.seccomp.flags
    bool uses_notify = false;          // some rule is SCMP_ACT_NOTIFY: apply adds SECCOMP_FILTER_FLAG_NEW_LISTENER
    bool enosys_stub = false;          // the ENOSYS stub was prepended
    std::string listener_path;         // linux.seccomp.listenerPath, for send_to_listener
    std::string listener_metadata;     // linux.seccomp.listenerMetadata
    std::vector<std::string> skipped_syscalls;  // unknown names dropped under UnknownSyscalls::skip_allowed
    std::vector<SeccompResolution> resolutions;
    std::vector<int> denial_errnos;  // every errno the filter can return: ENOSYS (stub), default, ERRNO rules
};

// Resolves every name (errors carry the field path: `linux.seccomp.syscalls[2].action: unknown action "X"`),
// builds the filter for the native arch plus linux.seccomp.architectures and exports it as BPF.
Result<SeccompPlan> prepare_seccomp(const spec::Seccomp& profile, const SeccompOptions& options = {});

// seccomp(SECCOMP_SET_MODE_FILTER, flags, program) for the calling thread. The kernel requires no_new_privs
// or CAP_SYS_ADMIN in the caller's user namespace (EACCES otherwise): that is the caller's business, as is
// the order (after credentials, no_new_privs and Landlock). Returns the notify listener fd when
// plan.uses_notify (the caller owns it), else -1. Allocation-free: safe in the container child.
Result<int> apply_seccomp(const SeccompPlan& plan) noexcept;

// Whether a call that failed with `err` after the filter was loaded may have been denied by it. Child-safe.
bool may_deny_with(const SeccompPlan& plan, int err) noexcept;

}  // namespace husk::seccomp
