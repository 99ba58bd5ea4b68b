// apply_mounts: step (1) in the child. Order as runc's prepareRoot + mountToRootfs + createDevices.
#include <fcntl.h>
#include <linux/limits.h>
#include <linux/magic.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>

#include <cerrno>
#include <cstring>

#include "mnt/mount_api.hpp"
#include "mnt/resolve.hpp"
#include "mnt/rootfs.hpp"
#include "mnt/rootfs_internal.hpp"

namespace husk::mnt {
namespace {

// Makes the mount that holds `path` private: mount(MS_PRIVATE) succeeds only on a mount's root, so walk up
// until one accepts. pivot_root(2) needs the new root's parent mount not to be shared.
Result<void> make_parent_private(const char* path) noexcept {
    char buffer[PATH_MAX];
    std::size_t length = std::strlen(path);
    if (length >= sizeof buffer) return fail_sys(ENAMETOOLONG, "make private", path);
    std::memcpy(buffer, path, length + 1);
    for (;;) {
        const char* current = length == 0 ? "/" : buffer;
        if (::mount(nullptr, current, nullptr, MS_PRIVATE, nullptr) == 0) return {};
        if (errno != EINVAL || length == 0) return fail_sys(errno, "make private", current);
        while (length > 0 && buffer[length - 1] != '/') --length;  // drop the last component
        while (length > 0 && buffer[length - 1] == '/') --length;  // and its slash
        buffer[length] = '\0';
    }
}

// The covered directory's permission bits on the new filesystem's root (PreparedMount::mode_of_target).
Result<void> take_mode_of_target(int target, int created, const char* dest) noexcept {
    struct stat st {};
    if (::fstat(target, &st) != 0) return fail_sys(errno, "stat", dest);
    UniqueFd root(::openat(created, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!root) return fail_sys(errno, "open the new tmpfs at", dest);
    if (::fchmod(root.get(), st.st_mode & 07777) != 0) return fail_sys(errno, "chmod the new tmpfs at", dest);
    return {};
}

Result<void> apply_mount(int root_fd, const PreparedMount& mount, UniqueFd fetched) noexcept {
    const char* dest = mount.destination.c_str();
    Create create = mount.target == TargetKind::file ? Create::file : Create::directory;
    if (mount.kind == MountKind::remount) create = Create::nothing;
    UniqueFd target = TRY(open_mount_point(root_fd, dest, create));

    // The destination may reach /proc through a symlink in the rootfs; the prepare-time check on the
    // path's text cannot see that, the filesystem type of what we opened can.
    struct statfs fs {};
    if (::fstatfs(target.get(), &fs) != 0) return fail_sys(errno, "statfs", dest);
    if (fs.f_type == PROC_SUPER_MAGIC && !mount.allowed_on_procfs)
        return fail_sys(EPERM, "mount target resolves inside /proc", dest);

    int mounted = -1;  // the fd of the mount the options apply to
    UniqueFd created;
    switch (mount.kind) {
    case MountKind::bind:
        mounted = fetched ? fetched.get() : mount.tree.get();
        TRY(attach(mounted, target.get(), dest));
        TRY(set_attributes(mounted, mount.attributes.set, mount.attributes.clear, false, dest));
        break;
    case MountKind::filesystem:
        // fsmount(2) takes the per-mount attributes directly; nothing to clear on a fresh mount.
        created = TRY(create_filesystem(mount.fs_type.c_str(), mount.parameters.data(), mount.parameters.size(),
                                        mount.attributes.set, dest));
        if (mount.mode_of_target) TRY(take_mode_of_target(target.get(), created.get(), dest));
        // Before the tmpfs covers the directory: its content is still there to copy.
        if (mount.copy_up) TRY(copy_up(target.get(), created.get(), dest));
        TRY(attach(created.get(), target.get(), dest));
        mounted = created.get();
        break;
    case MountKind::remount:
        mounted = target.get();
        TRY(set_attributes(mounted, mount.attributes.set, mount.attributes.clear, false, dest));
        break;
    }
    TRY(set_attributes(mounted, mount.recursive_set, mount.recursive_clear, true, dest));
    for (unsigned long propagation : mount.propagation) TRY(set_propagation(mounted, propagation, dest));
    return {};
}

}  // namespace

Result<UniqueFd> hold_rootfs(const RootfsPlan& plan) noexcept {
    const char* rootfs = plan.rootfs.c_str();
    // config-linux.md "Rootfs Mount Propagation"; by default rslave: nothing we mount from here on reaches
    // the host's mount namespace.
    if (::mount(nullptr, "/", nullptr, plan.root_propagation, nullptr) != 0)
        return fail_sys(errno, "set propagation of", "/");
    if (plan.make_rootfs_parent_private) TRY(make_parent_private(rootfs));
    UniqueFd held(::open(rootfs, O_PATH | O_DIRECTORY | O_CLOEXEC));
    if (!held) return fail_sys(errno, "open", rootfs);
    return held;
}

Result<UniqueFd> apply_mounts(const RootfsPlan& plan, int rootfs, TreeSource trees) noexcept {
    const char* subject = plan.rootfs.c_str();
    // The rootfs becomes a mount of its own: pivot_root needs one, and targets resolve beneath it. With
    // run.husk.root=tmpfs that mount is a fresh tmpfs instead of root.path bound onto itself. Both through the
    // held fd: no path is resolved again.
    UniqueFd root;
    if (plan.root_tmpfs) {
        root = TRY(mount_tmpfs_root(rootfs, subject));
    } else {
        root = TRY(clone_tree(rootfs, true, subject));
        TRY(attach(root.get(), rootfs, subject));
    }

    // config.md "Mounts": "The runtime MUST mount entries in the listed order." A bind's tree is cloned only
    // now, after the rootfs bind and the mounts before it, so mountinfo shows that order too.
    for (std::size_t i = 0; i < plan.mounts.size(); ++i) {
        UniqueFd tree;
        if (plan.mounts[i].kind == MountKind::bind && plan.binds_in_child)
            tree = TRY(clone_bind_source_here(plan, i));
        else if (plan.mounts[i].kind == MountKind::bind && trees.fetch != nullptr)
            tree = TRY(trees.fetch(trees.context, i));
        TRY(apply_mount(root.get(), plan.mounts[i], std::move(tree)));
    }
    if (plan.setup_dev) TRY(apply_devices(plan, root.get()));
    // config-linux.md "Default Devices": /dev/console is a bind of the pty; its mount point exists now.
    if (plan.terminal) TRY(open_mount_point(root.get(), "/dev/console", Create::file));
    return root;
}

}  // namespace husk::mnt
