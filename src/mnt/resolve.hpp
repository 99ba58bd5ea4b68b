// Paths inside the container's root: lexical cleaning (parent side) and opening with openat2(2)
// RESOLVE_IN_ROOT (child side), so that symlinks and ".." in the rootfs resolve as if the rootfs were "/"
// and can never lead out of it (docs/security.md, "Runtime CVE classes": symlinks in mount destinations).
#pragma once

#include <string>
#include <utility>

#include "husk/error.hpp"
#include "husk/unique_fd.hpp"

namespace husk::mnt {

// "/a//b/./c/../d" -> "/a/b/d"; relative paths are taken relative to "/" (config.md allows that for
// mount destinations, for compatibility); ".." never climbs above "/".
std::string clean_path(const std::string& path);

// The directory part and the last component of a clean path: "/dev/fuse" -> {"/dev", "fuse"}.
std::pair<std::string, std::string> split_path(const std::string& clean);

enum class Create {
    nothing,    // a missing path is ENOENT
    directory,  // missing components become directories (0755 less umask)
    file,       // ... and the last one an empty regular file (for binding a file over it)
};

// Opens `path` (clean, absolute) beneath root_fd as if root_fd were "/", with O_PATH. Components that are
// missing are created as `create` says, inside the directory they resolve to. Never allocates: the prefix
// walk uses a PATH_MAX buffer on the stack. A dangling symlink on the way is an error (ENOENT).
Result<UniqueFd> open_in_root(int root_fd, const char* path, Create create) noexcept;

// open_in_root for a mount point, refusing what it resolves to when that is not what the path promises: the
// container's root itself (a rootfs whose /dev is a symlink to "/" would get its /dev tmpfs over the whole
// rootfs, and the workload then "not found"), a non-directory for Create::directory, a directory for
// Create::file. The error names the path: `mount point "/dev" resolves to ...`.
Result<UniqueFd> open_mount_point(int root_fd, const char* path, Create create) noexcept;

}  // namespace husk::mnt
