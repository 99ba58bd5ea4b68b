#include "base/readonly_self.hpp"

#include <fcntl.h>
#include <linux/mount.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/xattr.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

#include "base/sys.hpp"
#include "base/trace.hpp"
#include "husk/unique_fd.hpp"

namespace husk {

Result<bool> own_binary_is_readonly() {
    UniqueFd self(::open("/proc/self/exe", O_PATH | O_CLOEXEC));
    if (!self) return fail_sys(errno, "open", "/proc/self/exe");
    struct statvfs fs{};
    if (::fstatvfs(self.get(), &fs) != 0) return fail_sys(errno, "fstatvfs", "/proc/self/exe");
    return (fs.f_flag & ST_RDONLY) != 0;
}

Result<void> reexec_from_readonly_self(char** argv, char** envp) {
    if (TRY(own_binary_is_readonly())) return {};
    const char* what = "protect husk's binary from the container (CVE-2019-5736)";
    UniqueFd tree(sys::open_tree(AT_FDCWD, "/proc/self/exe", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC));
    if (!tree) return fail(Error::sys(errno, "open_tree", "/proc/self/exe").context(what));
    mount_attr attr{};
    attr.attr_set = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV;
    if (sys::mount_setattr(tree.get(), "", AT_EMPTY_PATH, &attr) != 0)
        return fail(Error::sys(errno, "mount_setattr MOUNT_ATTR_RDONLY", "/proc/self/exe").context(what));
    // The new process's exe is the file as reached through this mount; the mount lives as long as that.
    trace::mark("re-exec");
    ::syscall(SYS_execveat, tree.get(), "", argv, envp, AT_EMPTY_PATH);
    return fail(Error::sys(errno, "execveat", "/proc/self/exe").context(what));
}

Result<bool> binary_is_safe_from(int fd, uid_t caller, const std::vector<IdRange>& uid_ranges) {
    struct statvfs fs {};
    if (::fstatvfs(fd, &fs) != 0) return fail_sys(errno, "fstatvfs", "/proc/self/exe");
    if (fs.f_flag & ST_RDONLY) return true;
    // A sealed copy (this process re-executed already): no write is possible whoever asks.
    if (int seals = ::fcntl(fd, F_GET_SEALS); seals >= 0 && (seals & F_SEAL_WRITE)) return true;
    struct stat st {};
    if (::fstat(fd, &st) != 0) return fail_sys(errno, "fstat", "/proc/self/exe");
    if (st.st_uid == caller) return false;
    for (const IdRange& range : uid_ranges)
        if (range.holds(st.st_uid)) return false;
    if (st.st_mode & (S_IWGRP | S_IWOTH)) return false;
    // An access ACL could grant a named user or group write permission (fgetxattr on an O_PATH fd fails:
    // opened for reading here).
    char path[64];
    std::snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    if (::getxattr(path, "system.posix_acl_access", nullptr, 0) >= 0) return false;
    if (errno != ENODATA && errno != EOPNOTSUPP) return fail_sys(errno, "getxattr system.posix_acl_access", "/proc/self/exe");
    return true;
}

Result<void> protect_own_binary_without_root(uid_t caller, const std::vector<IdRange>& uid_ranges, char** argv,
                                             char** envp) {
    const char* what = "protect husk's binary from the container (CVE-2019-5736)";
    UniqueFd self(::open("/proc/self/exe", O_RDONLY | O_CLOEXEC));
    if (!self) return fail(Error::sys(errno, "open", "/proc/self/exe").context(what));
    if (TRY(binary_is_safe_from(self.get(), caller, uid_ranges))) return {};
    UniqueFd copy(::memfd_create("husk", MFD_CLOEXEC | MFD_ALLOW_SEALING));
    if (!copy) return fail(Error::sys(errno, "memfd_create", "husk").context(what));
    struct stat st {};
    if (::fstat(self.get(), &st) != 0) return fail(Error::sys(errno, "fstat", "/proc/self/exe").context(what));
    for (off_t done = 0; done < st.st_size;) {
        ssize_t n = ::sendfile(copy.get(), self.get(), &done, static_cast<std::size_t>(st.st_size - done));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return fail(Error::sys(n < 0 ? errno : EIO, "copy", "/proc/self/exe").context(what));
    }
    if (::fchmod(copy.get(), 0555) != 0 ||
        ::fcntl(copy.get(), F_ADD_SEALS, F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE) != 0)
        return fail(Error::sys(errno, "seal", "memfd husk").context(what));
    trace::mark("re-exec (sealed copy)");
    ::fexecve(copy.get(), argv, envp);
    return fail(Error::sys(errno, "fexecve", "memfd husk").context(what));
}

}  // namespace husk
