// Child-side helpers over the new mount API (fsopen/fsconfig/fsmount, open_tree, move_mount,
// mount_setattr). All noexcept and allocation-free; `subject` names the container path in errors.
#pragma once

#include <cstdint>

#include "husk/error.hpp"
#include "husk/unique_fd.hpp"
#include "mnt/rootfs.hpp"

namespace husk::mnt {

// move_mount(2) the mount tree behind tree_fd (detached or not) onto target_fd.
Result<void> attach(int tree_fd, int target_fd, const char* subject) noexcept;

// A detached copy of the mount at fd (open_tree(2) OPEN_TREE_CLONE); `recursive` copies submounts too.
// The mount must belong to our mount namespace.
Result<UniqueFd> clone_tree(int fd, bool recursive, const char* subject) noexcept;

// mount_setattr(2) on the mount at fd; a no-op when set and clear are both 0.
Result<void> set_attributes(int fd, std::uint64_t set, std::uint64_t clear, bool recursive,
                            const char* subject) noexcept;

// Changes propagation: flags is MS_SHARED, MS_SLAVE, MS_PRIVATE or MS_UNBINDABLE, with MS_REC for the
// whole subtree.
Result<void> set_propagation(int fd, unsigned long flags, const char* subject) noexcept;

// A new, detached filesystem: fsopen(type), fsconfig for each parameter, FSCONFIG_CMD_CREATE,
// fsmount(attributes). Errors carry the kernel's own message from the fs context log.
Result<UniqueFd> create_filesystem(const char* type, const FsParameter* parameters, std::size_t count,
                                   std::uint64_t attributes, const char* subject) noexcept;

}  // namespace husk::mnt
