// The child's half: build the ruleset from the prepared plan and enforce it on the container init.
// Runs after clone, pivot_root, credentials and no_new_privs: system calls only, no allocation.
#include <fcntl.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstddef>

#include "base/stack_text.hpp"
#include "husk/unique_fd.hpp"
#include "landlock/abi.hpp"
#include "landlock/landlock.hpp"

namespace husk::landlock {
namespace {

// The kernel accepts a ruleset attribute as long as the bytes it does not know are zero; sending only the
// prefix that is used keeps a plan without network rights or scopes valid on ABI < 4.
std::size_t attr_size(const abi::RulesetAttr& attr) noexcept {
    if (attr.scoped != 0) return sizeof attr;
    if (attr.handled_access_net != 0) return offsetof(abi::RulesetAttr, scoped);
    return offsetof(abi::RulesetAttr, handled_access_net);
}

// landlock_add_rule(2): EINVAL for a path that is not a directory when the rule grants a right that only
// directories have (read_dir, remove_*, make_*, refer). Say so instead of a bare "invalid argument".
Error path_rule_error(int err, const LandlockPlan::PathRule& rule, int fd) noexcept {
    struct stat st = {};
    if (err == EINVAL && (rule.allowed & abi::fs_directory_only) && ::fstat(fd, &st) == 0 && !S_ISDIR(st.st_mode)) {
        StackText text;
        text << rule.field << ": \"" << rule.path
             << "\" is not a directory, so a rule on it can only allow execute, write_file, read_file, "
                "truncate and ioctl_dev";
        return Error::msg(text.view());
    }
    return Error::sys(err, "landlock_add_rule", rule.path).context(rule.field);
}

}  // namespace

Result<int> apply_landlock(const LandlockPlan& plan) noexcept {
    if (!plan.enforce) return 0;

    const abi::RulesetAttr attr{plan.handled_fs, plan.handled_net, plan.scoped};
    UniqueFd ruleset(abi::create_ruleset(&attr, attr_size(attr), 0));
    if (!ruleset) return fail(Error::sys(errno, "landlock_create_ruleset").context("process.landlock"));

    for (const LandlockPlan::PathRule& rule : plan.path_rules) {
        // Opened here, inside the container's root: the path names a container file, not a host one.
        UniqueFd path(::open(rule.path.c_str(), O_PATH | O_CLOEXEC));
        if (!path) return fail(Error::sys(errno, "open", rule.path).context(rule.field));
        const abi::PathBeneathAttr beneath{rule.allowed, path.get()};
        if (abi::add_rule(ruleset.get(), abi::rule_path_beneath, &beneath) != 0)
            return fail(path_rule_error(errno, rule, path.get()));
    }
    for (const LandlockPlan::PortRule& rule : plan.port_rules) {
        const abi::NetPortAttr port{rule.allowed, rule.port};
        if (abi::add_rule(ruleset.get(), abi::rule_net_port, &port) != 0)
            return fail(Error::sys(errno, "landlock_add_rule").context(rule.field));
    }

    // landlock_restrict_self(2): EPERM unless no_new_privs is set or the caller has CAP_SYS_ADMIN in its
    // user namespace; the recipe sets no_new_privs first.
    if (abi::restrict_self(ruleset.get(), 0) != 0) {
        const int err = errno;
        if (err == EPERM)
            return fail(Error::sys(err, "process.landlock: landlock_restrict_self needs no_new_privs or "
                                        "CAP_SYS_ADMIN, and the container process has neither"));
        return fail(Error::sys(err, "landlock_restrict_self").context("process.landlock"));
    }
    return plan.abi;
}

}  // namespace husk::landlock
