// CVE-2019-5736 (a container overwriting the runtime's binary through /proc/PID/exe of a runtime process it
// can see): husk processes that are or may become visible inside a container run from a read-only mount of
// husk's own binary, so that no open of their exe for writing can succeed, not even once no process
// executes the file any more (while one does, the kernel says ETXTBSY anyway).
#pragma once

#include <sys/types.h>

#include <vector>

#include "base/subordinate_ids.hpp"
#include "husk/error.hpp"

namespace husk {

// True when /proc/self/exe sits on a read-only mount (husk re-executed itself already, or is installed on a
// read-only filesystem).
Result<bool> own_binary_is_readonly();

// Unless own_binary_is_readonly(): re-executes /proc/self/exe with the same argv and environment from a
// detached, read-only bind mount of the file (open_tree OPEN_TREE_CLONE + mount_setattr MOUNT_ATTR_RDONLY +
// execveat AT_EMPTY_PATH). No copy: the mount shares the inode. Returns only on error (fail closed).
// envp is given, not taken from environ: before the C library's own initialisation (cli/main.cpp's
// before_libraries) environ is not set yet.
Result<void> reexec_from_readonly_self(char** argv, char** envp);

// Without root (docs/rootless.md) open_tree is not allowed, and not needed where the kernel's own permission
// checks keep every container of the caller from writing the file. Those containers hold, at most, the caller's
// uid and gid, its subordinate ids (`uid_ranges`), its supplementary groups, and capabilities only in user
// namespaces the caller owns, where they cover no file whose owner is not mapped. So the binary is safe when
// it is on a read-only mount, or when its owner is neither the caller nor a subordinate id, nobody but its
// owner may write it (no group or other write bit) and it has no ACL that could say otherwise. Otherwise
// husk re-executes itself from a sealed copy in memory (memfd_create + F_SEAL_WRITE), which no process can
// write. Returns only on error, or when the binary is safe already (a sealed copy included).
Result<void> protect_own_binary_without_root(uid_t caller, const std::vector<IdRange>& uid_ranges, char** argv,
                                             char** envp);

// The decision above, for the file at fd (exposed for its tests).
Result<bool> binary_is_safe_from(int fd, uid_t caller, const std::vector<IdRange>& uid_ranges);

}  // namespace husk
