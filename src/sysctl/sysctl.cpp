#include "sysctl/sysctl.hpp"

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <cerrno>
#include <string_view>
#include <utility>

#include "base/procfs.hpp"
#include "base/sys.hpp"
#include "husk/unique_fd.hpp"
#include "spec/sysctl_rules.hpp"

namespace husk::sysctl {
namespace {

bool on_procfs(int fd) noexcept {
    struct statfs fs = {};
    return ::fstatfs(fd, &fs) == 0 && fs.f_type == PROC_SUPER_MAGIC;
}

// True when the namespace open at fd is the one pid's ns/<name> link points to (same nsfs inode).
Result<bool> same_namespace(int fd, pid_t pid, const char* name) {
    struct stat joined = {}, other = {};
    if (::fstat(fd, &joined) != 0) return fail_sys(errno, "fstat", "namespace to join");
    UniqueFd pid_dir = TRY(open_proc_pid(pid));
    std::string link = std::string("ns/") + name;
    if (::fstatat(pid_dir.get(), link.c_str(), &other, 0) != 0) {
        // pid 1's namespaces are out of reach when husk itself runs in a container (ptrace access mode
        // check): then husk cannot open them to join either, so they cannot be the one at fd.
        if (pid == 1 && (errno == EACCES || errno == EPERM)) return false;
        return fail_sys(errno, "stat", "/proc/" + std::to_string(pid) + "/" + link);
    }
    return joined.st_dev == other.st_dev && joined.st_ino == other.st_ino;
}

// The fd of the namespace of this kind the container joins (-1: a new one) and its /proc/PID/ns link name.
std::pair<int, const char*> joined_namespace(spec::SysctlNamespace ns, const JoinedNamespaces& joined) {
    switch (ns) {
        case spec::SysctlNamespace::ipc: return {joined.ipc, "ipc"};
        case spec::SysctlNamespace::network: return {joined.network, "net"};
        case spec::SysctlNamespace::uts: return {joined.uts, "uts"};
        case spec::SysctlNamespace::none: break;
    }
    return {-1, ""};
}

// A namespace joined by path may still be the host's: husk's own, or that of pid 1 (when husk itself runs
// in another one). A sysctl written there would change the host, so it is refused.
Result<void> check_not_host_namespace(const std::string& where, spec::SysctlNamespace ns,
                                      const JoinedNamespaces& joined) {
    auto [fd, link] = joined_namespace(ns, joined);
    if (fd < 0) return {};
    for (pid_t pid : {::getpid(), pid_t{1}}) {
        if (TRY(same_namespace(fd, pid, link)))
            return fail_msg(where + ": refused: linux.namespaces joins the " + std::string(spec::namespace_type(ns)) +
                            " namespace of " + (pid == 1 ? "pid 1" : "husk itself") +
                            ", so writing it would change the host");
    }
    return {};
}

}  // namespace

Result<SysctlPlan> prepare_sysctl(const std::map<std::string, std::string>& sysctl, const JoinedNamespaces& joined) {
    SysctlPlan plan;
    for (const auto& [key, value] : sysctl) {
        TRY(spec::check_sysctl_name(key));
        const std::string where = "linux.sysctl[\"" + key + "\"]";
        spec::SysctlNamespace ns = spec::sysctl_namespace(key);
        if (ns == spec::SysctlNamespace::none)
            return fail_msg(where + ": refused: not a namespaced sysctl, writing it would change the host");
        TRY(check_not_host_namespace(where, ns, joined));
        plan.entries.push_back({key, spec::sysctl_path(key), value});
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
