#include "base/readonly_self.hpp"

#include <fcntl.h>
#include <linux/mount.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

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

}  // namespace husk
