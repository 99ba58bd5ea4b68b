// run.husk.root=tmpfs (spec/annotations.hpp): the container's root is a fresh tmpfs instead of a host
// directory, so that the mount points of mounts[] are made in memory and never in a host path. This is how
// `husk sandbox` shows the host's /usr read-only without a rootfs (as bubblewrap does with its tmpfs root).
#include <fcntl.h>
#include <linux/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "mnt/mount_api.hpp"
#include "mnt/rootfs_internal.hpp"

namespace husk::mnt {
namespace {

// The minimal account database a program expects (getpwuid for `id`, python's getpass, ls -l): root and the
// sandbox user, nobody (65534), named as Debian names them. Fixed text, so the child writes it without
// allocating.
constexpr char passwd_text[] =
    "root:x:0:0:root:/root:/bin/sh\n"
    "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n";
constexpr char group_text[] =
    "root:x:0:\n"
    "nogroup:x:65534:\n";

Result<void> write_new_file(int dir, const char* name, const char* text, const char* subject) noexcept {
    UniqueFd file(::openat(dir, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644));
    if (!file) return fail_sys(errno, "create", subject);
    std::size_t length = std::strlen(text);
    ssize_t written = ::write(file.get(), text, length);
    if (written < 0) return fail_sys(errno, "write", subject);
    if (static_cast<std::size_t>(written) != length) return fail_sys(EIO, "write (short)", subject);
    return {};
}

}  // namespace

Result<UniqueFd> mount_tmpfs_root(int rootfs, const char* subject) noexcept {
    // We are in the container's own mount namespace with "/" a slave at least (hold_rootfs), so covering
    // root.path is seen by nobody outside; the host directory is neither read nor written. nosuid and nodev as
    // every tmpfs husk makes; 0755 as a root directory has.
    UniqueFd root = TRY(create_filesystem("tmpfs", nullptr, 0, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV, subject));
    UniqueFd top(::openat(root.get(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!top || ::fchmod(top.get(), 0755) != 0) return fail_sys(errno, "chmod the tmpfs root at", subject);
    TRY(attach(root.get(), rootfs, subject));
    if (::mkdirat(root.get(), "etc", 0755) != 0) return fail_sys(errno, "mkdir", "/etc (tmpfs root)");
    UniqueFd etc(::openat(root.get(), "etc", O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!etc) return fail_sys(errno, "open", "/etc (tmpfs root)");
    TRY(write_new_file(etc.get(), "passwd", passwd_text, "/etc/passwd (tmpfs root)"));
    TRY(write_new_file(etc.get(), "group", group_text, "/etc/group (tmpfs root)"));
    return root;
}

}  // namespace husk::mnt
