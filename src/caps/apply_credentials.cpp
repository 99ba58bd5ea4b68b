// The child side of credentials: system calls only, no allocation (the plan holds every name and list).
// Raw syscalls for the id changes: after a raw clone3, glibc's setxid machinery (which signals the
// threads it believes exist) must not run.
#include <fcntl.h>
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string_view>

#include "base/stack_text.hpp"
#include "caps/credentials.hpp"

namespace husk::caps {
namespace {

bool has(std::uint64_t set, int cap) noexcept { return (set >> cap) & 1; }

std::string_view name_of(const CredentialsPlan& plan, int cap) noexcept {
    if (cap >= 0 && static_cast<std::size_t>(cap) < plan.names.size()) return plan.names[static_cast<std::size_t>(cap)];
    return "capability";
}

// True when this user namespace forbids setgroups(2) (user_namespaces(7), /proc/[pid]/setgroups).
bool setgroups_denied() noexcept {
    int fd = ::open("/proc/self/setgroups", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    char text[16] = {};
    ssize_t n = ::read(fd, text, sizeof text - 1);
    ::close(fd);
    return n >= 4 && std::strncmp(text, "deny", 4) == 0;
}

}  // namespace

Result<void> apply_bounding(const CredentialsPlan& plan) noexcept {
    for (int cap = 0; cap <= plan.last_cap; ++cap) {
        if (has(plan.sets.bounding, cap)) continue;
        // Dropping needs CAP_SETPCAP even for a capability already gone: read first.
        int present = ::prctl(PR_CAPBSET_READ, cap, 0, 0, 0);
        if (present < 0) return fail_sys(errno, "read the capability bounding set", name_of(plan, cap));
        if (present == 0) continue;
        if (::prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0)
            return fail_sys(errno, "drop from the capability bounding set", name_of(plan, cap));
    }
    return {};
}

Result<void> apply_ids(const CredentialsPlan& plan) noexcept {
    // Without keepcaps, leaving uid 0 clears the permitted set (capabilities(7), "Effect of user ID
    // changes on capabilities"); apply_capabilities then sets the wanted sets explicitly.
    if (::prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) != 0) return fail_sys(errno, "prctl PR_SET_KEEPCAPS");

    if (::syscall(SYS_setgroups, plan.additional_gids.size(), plan.additional_gids.data()) != 0) {
        int err = errno;
        if (err == EPERM && setgroups_denied()) {
            if (!plan.additional_gids.empty())
                return fail_sys(err,
                                "setgroups process.user.additionalGids: /proc/self/setgroups is \"deny\" in the "
                                "container's user namespace, so supplementary groups cannot be set; remove "
                                "additionalGids or map gids with setgroups allowed");
        } else {
            return fail_sys(err, "setgroups", "process.user.additionalGids");
        }
    }
    StackText gid;
    gid << static_cast<unsigned long>(plan.gid);
    if (::syscall(SYS_setresgid, plan.gid, plan.gid, plan.gid) != 0) return fail_sys(errno, "setresgid", gid.view());
    StackText uid;
    uid << static_cast<unsigned long>(plan.uid);
    if (::syscall(SYS_setresuid, plan.uid, plan.uid, plan.uid) != 0) return fail_sys(errno, "setresuid", uid.view());
    return {};
}

Result<void> apply_capabilities(const CredentialsPlan& plan) noexcept {
    __user_cap_header_struct header = {_LINUX_CAPABILITY_VERSION_3, 0};
    __user_cap_data_struct data[2] = {};
    const CapabilitySets& s = plan.sets;
    for (int half = 0; half < 2; ++half) {
        data[half].effective = static_cast<std::uint32_t>(s.effective >> (32 * half));
        data[half].permitted = static_cast<std::uint32_t>(s.permitted >> (32 * half));
        data[half].inheritable = static_cast<std::uint32_t>(s.inheritable >> (32 * half));
    }
    if (::syscall(SYS_capset, &header, data) != 0) {
        int err = errno;
        // capset cannot add to the permitted set: name what husk itself lacks (e.g. CAP_SYS_RESOURCE on a
        // host whose root runs without it).
        __user_cap_data_struct current[2] = {};
        if (err == EPERM && ::syscall(SYS_capget, &header, current) == 0) {
            std::uint64_t own = current[0].permitted | (std::uint64_t{current[1].permitted} << 32);
            for (int cap = 0; cap <= plan.last_cap; ++cap) {
                if (has(s.permitted, cap) && !has(own, cap)) {
                    StackText text;
                    text << "capset: " << name_of(plan, cap) << " is not in husk's own permitted set";
                    return fail_sys(err, text.view());
                }
                // An inheritable capability must also be in the bounding set as it is now.
                if (has(s.inheritable, cap) && ::prctl(PR_CAPBSET_READ, cap, 0, 0, 0) == 0) {
                    StackText text;
                    text << "capset: inheritable " << name_of(plan, cap) << " is not in the bounding set";
                    return fail_sys(err, text.view());
                }
            }
        }
        return fail_sys(err, "capset");
    }

    // The ambient set must equal the listed one: clear what husk may have inherited, then raise.
    if (::prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0 && !(errno == EINVAL && s.ambient == 0))
        return fail_sys(errno, "prctl PR_CAP_AMBIENT_CLEAR_ALL");
    for (int cap = 0; cap <= plan.last_cap; ++cap) {
        if (!has(s.ambient, cap)) continue;
        if (::prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, cap, 0, 0) != 0)
            return fail_sys(errno, "raise ambient capability", name_of(plan, cap));
    }
    return {};
}

void apply_umask(const CredentialsPlan& plan) noexcept { ::umask(plan.umask); }

}  // namespace husk::caps
