#include "sysctl/sysctl.hpp"

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <cerrno>
#include <string_view>

#include "base/sys.hpp"
#include "husk/unique_fd.hpp"

namespace husk::sysctl {
namespace {

bool on_procfs(int fd) noexcept {
    struct statfs fs = {};
    return ::fstatfs(fd, &fs) == 0 && fs.f_type == PROC_SUPER_MAGIC;
}

}  // namespace

Result<SysctlPlan> prepare_sysctl(const std::map<std::string, std::string>& sysctl) {
    SysctlPlan plan;
    for (const auto& [key, value] : sysctl) {
        const std::string where = "linux.sysctl[\"" + key + "\"]";
        if (key.find('/') != std::string::npos || key.find('\0') != std::string::npos)
            return fail_msg(where + ": a sysctl name is dot-separated and holds no '/' or NUL");
        std::string path;
        std::string_view rest = key;
        for (;;) {
            std::size_t dot = rest.find('.');
            std::string_view component = rest.substr(0, dot);
            if (component.empty()) return fail_msg(where + ": empty component in sysctl name");
            path += component;
            if (dot == std::string_view::npos) break;
            path += '/';
            rest.remove_prefix(dot + 1);
        }
        plan.entries.push_back({key, std::move(path), value});
    }
    return plan;
}

Result<void> apply_sysctl(const SysctlPlan& plan) noexcept {
    if (plan.entries.empty()) return {};
    open_how how = {};
    how.flags = O_PATH | O_DIRECTORY | O_CLOEXEC;
    how.resolve = RESOLVE_NO_SYMLINKS;
    UniqueFd proc_sys(sys::openat2(AT_FDCWD, "/proc/sys", &how));
    if (!proc_sys) return fail_sys(errno, "open", "/proc/sys");
    if (!on_procfs(proc_sys.get()))
        return fail_msg("/proc/sys is not procfs: sysctls are written only through the container's own /proc");

    for (const SysctlEntry& entry : plan.entries) {
        open_how file_how = {};
        file_how.flags = O_WRONLY | O_NOCTTY | O_CLOEXEC;
        // No symlink, no mount crossing (a bind mount over a sysctl file), nothing outside /proc/sys.
        file_how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV;
        UniqueFd file(sys::openat2(proc_sys.get(), entry.path.c_str(), &file_how));
        if (!file) return fail_sys(errno, "open sysctl", entry.key);
        if (!on_procfs(file.get())) return fail_sys(EXDEV, "open sysctl (not on procfs)", entry.key);
        ssize_t written;
        do {
            written = ::write(file.get(), entry.value.data(), entry.value.size());
        } while (written < 0 && errno == EINTR);
        if (written < 0) return fail_sys(errno, "write sysctl", entry.key);
        if (static_cast<std::size_t>(written) != entry.value.size())
            return fail_sys(EIO, "short write to sysctl", entry.key);
    }
    return {};
}

}  // namespace husk::sysctl
