// The container's filesystem view: rootfs propagation, the rootfs bind, config.md "Mounts" in order, /dev
// and linux.devices, pivot_root, the console, maskedPaths, readonlyPaths and the read-only root
// (config-linux.md). prepare_rootfs runs in the parent and may allocate; every apply_* runs in the container
// child, inside its own mount namespace, and only makes system calls.
//
// Mounts use the new mount API onto file descriptors: targets are opened inside the rootfs with openat2(2)
// RESOLVE_IN_ROOT, never by host path, so a symlink in the rootfs cannot send a mount outside it.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "husk/error.hpp"
#include "husk/spec.hpp"
#include "husk/unique_fd.hpp"
#include "mnt/mount_options.hpp"

namespace husk::mnt {

struct RootfsOptions {
    bool no_pivot = false;  // --no-pivot: MS_MOVE + chroot instead of pivot_root
    bool terminal = false;  // process.terminal: /dev/console gets an empty file for apply_console
    std::string bundle;     // bind sources given as relative paths are relative to it (config.md "Mounts")
    bool root_tmpfs = false;  // run.husk.root=tmpfs: a fresh tmpfs over the rootfs, not the rootfs itself
    // The cgroup v2 hierarchy's mount point as husk sees it ("/sys/fs/cgroup/unified"): a "cgroup" mount of a
    // container without a new cgroup namespace is a bind of it (prepare.cpp). Empty: mounted anew.
    std::string cgroup2_mount{};
    // husk runs without root (docs/rootless.md): open_tree(OPEN_TREE_CLONE) needs CAP_SYS_ADMIN over the mount
    // namespace, which the caller has in the container's alone. So a bind source and a host device node are
    // cloned by the child itself (clone_bind_source_here), not in prepare or by the parent.
    bool rootless = false;
};

enum class MountKind {
    bind,        // "bind"/"rbind" in options: a detached copy of the source, made in prepare
    filesystem,  // a new superblock: fsopen + fsconfig + fsmount in the child
    remount,     // "remount": change the attributes of what is already mounted at the destination
};

enum class TargetKind { directory, file };

// One fsconfig(2) call: FSCONFIG_SET_STRING key=value, or FSCONFIG_SET_FLAG key.
struct FsParameter {
    std::string key;
    std::string value;
    bool flag = false;
};

struct PreparedMount {
    std::string destination;  // clean absolute path inside the container
    MountKind kind = MountKind::filesystem;
    TargetKind target = TargetKind::directory;  // a bind of a file needs a file to mount on
    // bind: the source opened O_PATH in the parent (see prepare_mount.cpp for why), and a detached copy of it
    // (open_tree OPEN_TREE_CLONE) made there too. The copy the container gets is cloned from `source` when it
    // is attached (clone_bind_source), so its mount id follows config order; `tree` is that copy for
    // apply_mounts without a TreeSource.
    UniqueFd source;
    UniqueFd tree;
    bool recursive = false;  // "rbind": the copy takes the submounts too
    std::string fs_type;                  // filesystem: the fsopen(2) name ("tmpfs"; "cgroup" -> "cgroup2")
    std::vector<FsParameter> parameters;  // filesystem: "source", the data options, superblock flags
    MountAttributes attributes;           // the top mount's MOUNT_ATTR_* (fsmount or mount_setattr)
    std::uint64_t recursive_set = 0;      // "rro", "rnosuid", ...: mount_setattr with AT_RECURSIVE
    std::uint64_t recursive_clear = 0;
    std::vector<unsigned long> propagation;  // MS_SHARED / MS_SLAVE / ... (| MS_REC), in order
    bool allowed_on_procfs = false;          // one of the few files in /proc that may be covered (lxcfs)
    bool readonly_after_devices = false;     // a read-only /dev: made read-only by apply_finalize
    bool copy_up = false;                    // "tmpcopyup": the tmpfs gets a copy of the directory it covers
    bool mode_of_target = false;             // a tmpfs without "mode=": it takes the covered directory's mode
};

// A device node to create in the container (defaults + linux.devices, config-linux.md "Devices").
struct PreparedDevice {
    std::string path;    // "/dev/fuse", clean
    std::string parent;  // "/dev"
    std::string name;    // "fuse"
    mode_t mode = 0;     // file type | permission bits
    dev_t rdev = 0;
    uid_t uid = 0;
    gid_t gid = 0;
    // The host's node of the same type and number, as a detached bind: used when mknod fails with EPERM
    // (inside a user namespace), as runc does. Empty when the host has no such node.
    UniqueFd host_tree;
};

struct DevSymlink {
    std::string target;  // "/proc/self/fd"
    std::string name;    // in /dev: "fd"
};

struct RootfsPlan {
    std::string rootfs;  // absolute, resolved host path
    bool binds_in_child = false;  // RootfsOptions::rootless: apply_mounts clones each bind source itself
    bool root_tmpfs = false;  // mount_tmpfs_root over it instead of binding it onto itself
    bool no_pivot = false;
    bool terminal = false;
    unsigned long root_propagation = 0;        // applied to "/" first (default MS_SLAVE | MS_REC, as runc)
    bool make_rootfs_parent_private = false;   // the rootfs's mount could still be shared: pivot_root needs not
    unsigned long post_pivot_propagation = 0;  // rootfsPropagation re-applied to the new "/" (0: none)
    std::vector<PreparedMount> mounts;
    bool setup_dev = false;  // /dev is not a bind mount: create devices, /dev/ptmx, the /dev symlinks
    std::vector<PreparedDevice> devices;
    std::vector<DevSymlink> dev_symlinks;
    std::vector<std::string> masked_paths;    // clean
    std::vector<std::string> readonly_paths;  // clean
    // The host's /dev/null (checked to be char 1:3) as a detached bind: masks use it when the container's
    // own /dev/null is not the real null device.
    UniqueFd host_null;
    bool readonly_root = false;
};

Result<RootfsPlan> prepare_rootfs(const spec::Spec& spec, const std::string& rootfs, RootfsOptions options);

// Parent: a fresh detached copy of the source of plan.mounts[index] (a bind), cloned from the fd opened in
// prepare (no path is resolved again) and made a slave like the prepared one.
Result<UniqueFd> clone_bind_source(const RootfsPlan& plan, std::size_t index);

// Child, without root: a detached slave copy of plan.mounts[index]'s source, cloned in the container's mount
// namespace (a copy of the parent's, so the source's path, as the fd opened in prepare names it, leads to a
// copy of the same mount) and checked to be the very file prepare opened (device and inode); before pivot_root.
Result<UniqueFd> clone_bind_source_here(const RootfsPlan& plan, std::size_t index) noexcept;

// Where apply_mounts gets each bind's tree at the moment it attaches it. A mount's unique id is given when it
// is created (for a bind: when its tree is cloned, not when move_mount attaches it), and /proc/self/mountinfo
// lists mounts in that order (Linux >= 6.8): trees cloned in prepare would show before the rootfs. The container's
// parent answers each fetch with clone_bind_source. Without a fetch, the trees cloned in prepare are used.
struct TreeSource {
    Result<UniqueFd> (*fetch)(const void* context, std::size_t index) noexcept = nullptr;
    const void* context = nullptr;
};

// (0) rootfsPropagation on "/", the rootfs's parent mount made private when it could be shared, and the rootfs
//     directory opened: before init takes its ids in a user namespace, while they are still its parent's (root's,
//     or the unprivileged caller's). So a rootfs, or the state root a tmpfs root covers, below a directory that
//     the container's ids cannot search (a 0700 $XDG_RUNTIME_DIR, mktemp -d) is reached all the same; nothing
//     after this step resolves a host path.
Result<UniqueFd> hold_rootfs(const RootfsPlan& plan) noexcept;
// (1) The held rootfs bound onto itself (or a fresh tmpfs over it), config.md "Mounts" in order, /dev setup,
//     linux.devices, the /dev/console placeholder. Returns the new root's mount.
Result<UniqueFd> apply_mounts(const RootfsPlan& plan, int rootfs, TreeSource trees = {}) noexcept;
// (2) pivot_root into `root` (apply_mounts's mount) and detach the old root (or MS_MOVE + chroot); ends with
//     cwd "/".
Result<void> apply_pivot(const RootfsPlan& plan, int root) noexcept;
// (3) Binds the pty slave (opened from the container's own devpts) over /dev/console.
Result<void> apply_console(const RootfsPlan& plan, int pty_slave_fd) noexcept;
// (4) readonlyPaths, maskedPaths, a read-only /dev if asked, the read-only root.
Result<void> apply_finalize(const RootfsPlan& plan) noexcept;

}  // namespace husk::mnt
