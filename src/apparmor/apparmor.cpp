#include "apparmor/apparmor.hpp"

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "base/fs.hpp"
#include "husk/unique_fd.hpp"

namespace husk::apparmor {
namespace {

constexpr const char* field = "process.apparmorProfile";
constexpr const char* attr_path = "/proc/thread-self/attr/apparmor/exec";
constexpr const char* legacy_attr_path = "/proc/self/attr/exec";  // before Linux 5.8: the one LSM's attributes

// Absent: no AppArmor in the kernel. Any other failure to read it is an error of its own. A sysfs file says it
// is 4096 bytes long, whatever it holds.
Result<bool> enabled(const char* enabled_file) {
    auto value = read_file(enabled_file, 4096);
    if (!value && value.error().err == ENOENT) return false;
    if (!value) return fail(value.error());
    return !value->empty() && (*value)[0] == 'Y';
}

// The exec attribute of this thread, on procfs: a file the image put at the path would take the write and
// leave the process unconfined.
Result<UniqueFd> open_attr(int flags, const char*& path) noexcept {
    path = attr_path;
    int fd = ::open(path, flags | O_CLOEXEC | O_NOCTTY);
    if (fd < 0 && errno == ENOENT) {
        path = legacy_attr_path;
        fd = ::open(path, flags | O_CLOEXEC | O_NOCTTY);
    }
    if (fd < 0) return fail_sys(errno, "open", path);
    UniqueFd attr(fd);
    struct statfs fs = {};
    if (::fstatfs(attr.get(), &fs) != 0) return fail_sys(errno, "fstatfs", path);
    if (fs.f_type != PROC_SUPER_MAGIC) return fail_sys(EXDEV, "open (not on procfs)", path);
    return attr;
}

}  // namespace

Result<AppArmorPlan> prepare_apparmor(const std::string& profile, const char* enabled_file) {
    AppArmorPlan plan;
    if (profile.empty()) return plan;
    for (unsigned char c : profile)
        if (c < 0x20 || c == 0x7f)
            return fail_msg(std::string(field) + ": a control character in the profile name");
    if (!TRY(enabled(enabled_file))) {
        if (profile == "unconfined") return plan;
        return fail_msg(std::string(field) + " \"" + profile + "\": AppArmor is not enabled on this host (" +
                        enabled_file + " is not Y); husk does not run a process less confined than asked");
    }
    plan.profile = profile;
    plan.command = "exec " + profile;
    return plan;
}

Result<void> apply_apparmor(const AppArmorPlan& plan) noexcept {
    if (plan.command.empty()) return {};
    const char* path = nullptr;
    {
        UniqueFd attr = TRY(open_attr(O_WRONLY, path));
        const ssize_t n = ::write(attr.get(), plan.command.data(), plan.command.size());
        // ENOENT: no profile of that name is loaded.
        if (n < 0) return fail_sys(errno, field, plan.profile);
        if (static_cast<std::size_t>(n) != plan.command.size()) return fail_sys(EIO, "short write", path);
    }
    // The kernel reads the label back as "NAME (MODE)\n" ("unconfined\n").
    UniqueFd attr = TRY(open_attr(O_RDONLY, path));
    char held[256] = {};
    const ssize_t n = ::read(attr.get(), held, sizeof held - 1);
    if (n < 0) return fail_sys(errno, "read", path);
    const std::size_t length = plan.profile.size();
    const bool same = static_cast<std::size_t>(n) >= length && std::memcmp(held, plan.profile.data(), length) == 0 &&
                      (static_cast<std::size_t>(n) == length || held[length] == ' ' || held[length] == '\n');
    if (!same) return fail_sys(EPERM, "the exec attribute does not hold process.apparmorProfile", plan.profile);
    return {};
}

}  // namespace husk::apparmor
