// apply_finalize: step (4) in the child, after pivot_root. config-linux.md "Readonly Paths", "Masked Paths",
// and root.readonly. Order as runc: readonly paths, then masks (on top of them), then the root.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <cerrno>

#include "mnt/mount_api.hpp"
#include "mnt/resolve.hpp"
#include "mnt/rootfs.hpp"

namespace husk::mnt {
namespace {

// A mount source used for several masks: the first mask attaches it (a detached tree can be attached once),
// later ones attach clones of it, which open_tree allows once it is in our namespace. One tmpfs superblock
// then serves every masked directory, as in runc 1.5.
struct SharedSource {
    int fd = -1;
    bool attached = false;  // fd is in our namespace: clone it; otherwise attach fd itself
    UniqueFd owned;

    Result<void> mount_on(int target_fd, const char* subject) noexcept {
        if (!attached) {
            TRY(attach(fd, target_fd, subject));
            attached = true;
            return {};
        }
        UniqueFd copy = TRY(clone_tree(fd, false, subject));
        return attach(copy.get(), target_fd, subject);
    }
};

bool is_null_device(int fd) noexcept {
    struct stat st {};
    return ::fstat(fd, &st) == 0 && S_ISCHR(st.st_mode) && major(st.st_rdev) == 1 && minor(st.st_rdev) == 3;
}

// The /dev/null to mask files with: the container's own if it really is char 1:3 (it is not a symlink to
// a regular file, nor a regular file: CVE-2025-31133), else the host's, verified in prepare.
Result<void> choose_null(const RootfsPlan& plan, int root_fd, SharedSource& null) noexcept {
    auto own = open_in_root(root_fd, "/dev/null", Create::nothing);
    if (own && is_null_device(own->get())) {
        null.owned = std::move(*own);
        null.fd = null.owned.get();
        null.attached = true;  // already part of our tree: clone it for each mask
        return {};
    }
    if (plan.host_null) {
        null.fd = plan.host_null.get();
        return {};
    }
    return fail_sys(ENODEV, "maskedPaths: /dev/null is not the null device (char 1:3) and no other is available",
                    "/dev/null");
}

Result<void> mask(const RootfsPlan& plan, int root_fd) noexcept {
    SharedSource null;
    SharedSource empty_dir;
    for (const auto& path : plan.masked_paths) {
        const char* subject = path.c_str();
        auto target = open_in_root(root_fd, subject, Create::nothing);
        // runc skips paths that do not exist; ENOTDIR means a parent is not a directory: it does not exist either.
        if (!target && (target.error().err == ENOENT || target.error().err == ENOTDIR)) continue;
        if (!target) return fail(target.error());
        struct stat st {};
        if (::fstat(target->get(), &st) != 0) return fail_sys(errno, "stat", subject);
        if (S_ISDIR(st.st_mode)) {
            if (empty_dir.fd < 0) {
                // An empty tmpfs on a read-only mount hides the directory's content (clones keep the flags).
                empty_dir.owned = TRY(create_filesystem("tmpfs", nullptr, 0,
                                                        MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV |
                                                            MOUNT_ATTR_NOEXEC,
                                                        subject));
                empty_dir.fd = empty_dir.owned.get();
            }
            TRY(empty_dir.mount_on(target->get(), subject));
        } else {
            if (null.fd < 0) TRY(choose_null(plan, root_fd, null));
            TRY(null.mount_on(target->get(), subject));
        }
    }
    return {};
}

// A read-only bind of each path onto itself; mount_setattr only adds MOUNT_ATTR_RDONLY, so nosuid, nodev
// and noexec of what was there stay. Recursive: everything below the path is read-only too.
Result<void> readonly_paths(const RootfsPlan& plan, int root_fd) noexcept {
    for (const auto& path : plan.readonly_paths) {
        const char* subject = path.c_str();
        auto target = open_in_root(root_fd, subject, Create::nothing);
        if (!target && (target.error().err == ENOENT || target.error().err == ENOTDIR)) continue;
        if (!target) return fail(target.error());
        UniqueFd copy = TRY(clone_tree(target->get(), true, subject));
        TRY(attach(copy.get(), target->get(), subject));
        TRY(set_attributes(copy.get(), MOUNT_ATTR_RDONLY, 0, true, subject));
    }
    return {};
}

}  // namespace

Result<void> apply_finalize(const RootfsPlan& plan) noexcept {
    UniqueFd root(::open("/", O_PATH | O_DIRECTORY | O_CLOEXEC));
    if (!root) return fail_sys(errno, "open", "/");
    TRY(readonly_paths(plan, root.get()));
    TRY(mask(plan, root.get()));
    // A read-only /dev could only be made so now that its devices exist.
    for (const auto& mount : plan.mounts) {
        if (!mount.readonly_after_devices) continue;
        UniqueFd dev = TRY(open_in_root(root.get(), mount.destination.c_str(), Create::nothing));
        TRY(set_attributes(dev.get(), MOUNT_ATTR_RDONLY, 0, false, mount.destination.c_str()));
    }
    // root.readonly: the root mount only, as runc (submounts such as /proc or /dev keep their own flags).
    if (plan.readonly_root) TRY(set_attributes(root.get(), MOUNT_ATTR_RDONLY, 0, false, "/"));
    return {};
}

}  // namespace husk::mnt
