// CVE-2019-5736 (a container overwriting the runtime's binary through /proc/PID/exe of a runtime process it
// can see): husk processes that are or may become visible inside a container run from a read-only mount of
// husk's own binary, so that no open of their exe for writing can succeed, not even once no process
// executes the file any more (while one does, the kernel says ETXTBSY anyway).
#pragma once

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

}  // namespace husk
