// apply_seccomp runs in the container child: one system call, no allocation
// (docs/design.md, "Prepare in the parent, apply in the child").
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

#include "seccomp/filter.hpp"
#include "seccomp/kernel.hpp"

namespace husk::seccomp {

Result<int> apply_seccomp(const SeccompPlan& plan) noexcept {
    std::uint32_t flags = plan.flags;
    if (plan.uses_notify) {
        flags |= kFlagNewListener;
        // seccomp(2): TSYNC together with NEW_LISTENER is EINVAL unless TSYNC_ESRCH says how a failed
        // thread sync is reported (the return value is the listener fd).
        if (flags & kFlagTsync) flags |= kFlagTsyncEsrch;
    }
    sock_fprog program{};
    program.len = static_cast<unsigned short>(plan.program.size());
    program.filter = const_cast<sock_filter*>(plan.program.data());
    long rc = ::syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, &program);
    if (rc < 0) return fail(Error::sys(errno, "seccomp", "SECCOMP_SET_MODE_FILTER"));
    return plan.uses_notify ? static_cast<int>(rc) : -1;
}

bool may_deny_with(const SeccompPlan& plan, int err) noexcept {
    for (int denial : plan.denial_errnos)
        if (denial == err) return true;
    return false;
}

}  // namespace husk::seccomp
