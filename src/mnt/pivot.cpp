// apply_pivot and apply_console: steps (2) and (3) in the child.
#include <fcntl.h>
#include <sys/mount.h>
#include <unistd.h>

#include <cerrno>

#include "base/sys.hpp"
#include "mnt/mount_api.hpp"
#include "mnt/resolve.hpp"
#include "mnt/rootfs.hpp"

namespace husk::mnt {
namespace {

Result<void> check(int rc, const char* op, const char* subject) noexcept {
    if (rc != 0) return fail_sys(errno, op, subject);
    return {};
}

// pivot_root(2) "NOTES": pivot_root(".", ".") stacks the old root on top of the new one; unmounting "."
// from the old root's directory then leaves only the new root. The old root is made a recursive slave
// first, so its unmount does not propagate to the host.
Result<void> pivot(int root, const char* rootfs) noexcept {
    UniqueFd old_root(::open("/", O_PATH | O_DIRECTORY | O_CLOEXEC));
    if (!old_root) return fail_sys(errno, "open", "/");
    TRY(check(::fchdir(root), "chdir", rootfs));
    TRY(check(sys::pivot_root(".", "."), "pivot_root", rootfs));
    TRY(check(::fchdir(old_root.get()), "chdir", "old root"));
    TRY(check(::mount(nullptr, ".", nullptr, MS_SLAVE | MS_REC, nullptr), "make old root a slave", "/"));
    TRY(check(::umount2(".", MNT_DETACH), "detach old root", "/"));
    return {};
}

// --no-pivot: move the rootfs mount over "/" and chroot into it. Weaker than pivot_root (the old root stays
// reachable for a process that can escape a chroot), which is why runc refuses private propagation with it.
// "." is the root of the rootfs's mount, which MS_MOVE needs.
Result<void> move_root(int root, const char* rootfs) noexcept {
    TRY(check(::fchdir(root), "chdir", rootfs));
    TRY(check(::mount(".", "/", nullptr, MS_MOVE, nullptr), "move rootfs onto", "/"));
    TRY(check(::chroot("."), "chroot", rootfs));
    return {};
}

}  // namespace

Result<void> apply_pivot(const RootfsPlan& plan, int root) noexcept {
    if (plan.no_pivot)
        TRY(move_root(root, plan.rootfs.c_str()));
    else
        TRY(pivot(root, plan.rootfs.c_str()));
    TRY(check(::chdir("/"), "chdir", "/"));
    // runc re-applies a shared/slave/unbindable rootfsPropagation to the new "/" itself.
    if (plan.post_pivot_propagation != 0)
        TRY(check(::mount(nullptr, "/", nullptr, plan.post_pivot_propagation, nullptr), "set propagation of", "/"));
    return {};
}

Result<void> apply_console(const RootfsPlan&, int pty_slave_fd) noexcept {
    UniqueFd root(::open("/", O_PATH | O_DIRECTORY | O_CLOEXEC));
    if (!root) return fail_sys(errno, "open", "/");
    UniqueFd target = TRY(open_in_root(root.get(), "/dev/console", Create::file));
    // The clone only works for a pty of a devpts mounted in our own mount namespace (the container's
    // /dev/pts, as config-linux.md asks): open_tree refuses mounts of other namespaces.
    auto pty = clone_tree(pty_slave_fd, false, "pty slave (must come from the container's /dev/pts)");
    if (!pty) return fail(pty.error());
    TRY(attach(pty->get(), target.get(), "/dev/console"));
    return {};
}

}  // namespace husk::mnt
