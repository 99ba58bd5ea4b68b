// Pieces of prepare_rootfs and apply_mounts that live in their own files (devices.cpp, prepare_mount.cpp).
#pragma once

#include <string>

#include "husk/error.hpp"
#include "husk/spec.hpp"
#include "mnt/rootfs.hpp"

namespace husk::mnt {

// One config.md mount, ready for the child. A read-only filesystem at /dev becomes read-only only in
// apply_finalize, after the devices are made in it. A cgroup filesystem becomes a bind of `cgroup2_bind`
// when that is not empty (prepare_rootfs says why). `rootless`: a bind's copy is left to the child
// (RootfsOptions::rootless).
Result<PreparedMount> prepare_mount(const spec::Mount& mount, const std::string& bundle,
                                    const std::string& cgroup2_bind, bool rootless);

// The default devices (config-linux.md "Default Devices") merged with linux.devices, and the /dev symlinks.
Result<void> prepare_devices(const spec::Spec& spec, RootfsPlan& plan);

// A detached bind (OPEN_TREE_CLONE) of a host device node, only if it is of the given type and number.
UniqueFd open_host_device(const char* path, mode_t type, dev_t rdev) noexcept;

// Child: devices, /dev/ptmx, the /dev symlinks, inside the rootfs opened at root_fd.
Result<void> apply_devices(const RootfsPlan& plan, int root_fd) noexcept;

// Child: "tmpcopyup", the content of the directory `from` (the mount point, before the tmpfs covers it)
// copied into the new, still detached tmpfs `to`. `subject` is the mount's destination, for errors.
Result<void> copy_up(int from, int to, const char* subject) noexcept;

// Child: run.husk.root=tmpfs. A fresh tmpfs (0755) over the directory `rootfs` (hold_rootfs's fd), in the
// container's mount namespace, with /etc/passwd and /etc/group for root and nobody (65534); it is then the
// rootfs that mounts[] go into. Returns the tmpfs's mount.
Result<UniqueFd> mount_tmpfs_root(int rootfs, const char* subject) noexcept;

}  // namespace husk::mnt
