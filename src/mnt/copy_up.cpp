// "tmpcopyup" (runc's extension to config.md's options): the new tmpfs starts with a copy of what the
// directory it covers held. podman asks for it on every tmpfs it mounts: `--tmpfs`, and /tmp, /var/tmp and
// /run of `--read-only`. Child side: system calls and stack buffers only. The image is read through fds,
// each entry opened beneath its directory's fd with O_NOFOLLOW, so a symlink in it is copied as a symlink
// and never followed out of the rootfs. Kept: the file types (regular, directory, symlink, device, fifo),
// content, mode and owner. Not kept: times, extended attributes, hard links (each name gets its own copy);
// sockets are left out (nothing listens on a copy). runc copies the same way.
#include <dirent.h>
#include <fcntl.h>
#include <linux/limits.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstring>

#include "husk/unique_fd.hpp"
#include "mnt/rootfs_internal.hpp"

namespace husk::mnt {
namespace {

// Each level holds a directory listing buffer on the stack; an image is not nested this deep.
constexpr int max_depth = 64;

// Owner first: chown clears the set-id bits that the mode then puts back.
Result<void> set_owner_and_mode(int fd, const struct stat& st, const char* name) noexcept {
    if (::fchown(fd, st.st_uid, st.st_gid) != 0) return fail_sys(errno, "tmpcopyup: chown", name);
    if (::fchmod(fd, st.st_mode & 07777) != 0) return fail_sys(errno, "tmpcopyup: chmod", name);
    return {};
}

Result<void> copy_file(int from_dir, int to_dir, const char* name, const struct stat& st) noexcept {
    // O_NONBLOCK: if the entry was swapped for a fifo since fstatat, open must not wait for a writer.
    UniqueFd in(::openat(from_dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
    if (!in) return fail_sys(errno, "tmpcopyup: open", name);
    struct stat opened {};
    if (::fstat(in.get(), &opened) != 0) return fail_sys(errno, "tmpcopyup: stat", name);
    if (!S_ISREG(opened.st_mode) || opened.st_ino != st.st_ino || opened.st_dev != st.st_dev)
        return fail_sys(ESTALE, "tmpcopyup: changed while copied", name);
    UniqueFd out(::openat(to_dir, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
    if (!out) return fail_sys(errno, "tmpcopyup: create", name);
    for (off_t left = opened.st_size; left > 0;) {
        ssize_t n = ::sendfile(out.get(), in.get(), nullptr, static_cast<std::size_t>(left < (1 << 30) ? left : (1 << 30)));
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return fail_sys(errno, "tmpcopyup: copy", name);
        if (n == 0) break;  // the file shrank meanwhile
        left -= n;
    }
    return set_owner_and_mode(out.get(), opened, name);
}

Result<void> copy_entries(int from, int to, int depth) noexcept;

Result<void> copy_directory(int from_dir, int to_dir, const char* name, const struct stat& st, int depth) noexcept {
    if (depth >= max_depth) return fail_sys(ELOOP, "tmpcopyup: directories nested too deep at", name);
    UniqueFd in(::openat(from_dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!in) return fail_sys(errno, "tmpcopyup: open", name);
    if (::mkdirat(to_dir, name, 0700) != 0) return fail_sys(errno, "tmpcopyup: mkdir", name);
    UniqueFd out(::openat(to_dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!out) return fail_sys(errno, "tmpcopyup: open", name);
    TRY(copy_entries(in.get(), out.get(), depth + 1));
    // After the content: a read-only mode must not stop the copy into it.
    return set_owner_and_mode(out.get(), st, name);
}

Result<void> copy_entry(int from, int to, const char* name, int depth) noexcept {
    struct stat st {};
    if (::fstatat(from, name, &st, AT_SYMLINK_NOFOLLOW) != 0) return fail_sys(errno, "tmpcopyup: stat", name);
    switch (st.st_mode & S_IFMT) {
    case S_IFREG:
        return copy_file(from, to, name, st);
    case S_IFDIR:
        return copy_directory(from, to, name, st, depth);
    case S_IFLNK: {
        char target[PATH_MAX];
        ssize_t length = ::readlinkat(from, name, target, sizeof target - 1);
        if (length < 0) return fail_sys(errno, "tmpcopyup: readlink", name);
        target[length] = '\0';
        if (::symlinkat(target, to, name) != 0) return fail_sys(errno, "tmpcopyup: symlink", name);
        if (::fchownat(to, name, st.st_uid, st.st_gid, AT_SYMLINK_NOFOLLOW) != 0)
            return fail_sys(errno, "tmpcopyup: chown", name);
        return {};
    }
    case S_IFCHR:
    case S_IFBLK:
    case S_IFIFO:
        if (::mknodat(to, name, st.st_mode & ~07777, st.st_rdev) != 0) return fail_sys(errno, "tmpcopyup: mknod", name);
        if (::fchownat(to, name, st.st_uid, st.st_gid, AT_SYMLINK_NOFOLLOW) != 0)
            return fail_sys(errno, "tmpcopyup: chown", name);
        if (::fchmodat(to, name, st.st_mode & 07777, 0) != 0) return fail_sys(errno, "tmpcopyup: chmod", name);
        return {};
    default:  // a socket
        return {};
    }
}

// getdents64(2)'s record (glibc 2.36 has no wrapper; base's list_dir allocates): the fixed part, then the
// name, NUL-terminated, at byte 19.
struct LinuxDirent64 {
    ino64_t d_ino;
    off64_t d_off;
    unsigned short d_reclen;
    unsigned char d_type;
};
constexpr std::size_t dirent_name_offset = 19;

Result<void> copy_entries(int from, int to, int depth) noexcept {
    alignas(8) char buffer[2048];
    for (;;) {
        long n = ::syscall(SYS_getdents64, from, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return fail_sys(errno, "tmpcopyup: list directory");
        if (n == 0) return {};
        for (long offset = 0; offset < n;) {
            const char* record = buffer + offset;
            unsigned short length = 0;
            std::memcpy(&length, record + offsetof(LinuxDirent64, d_reclen), sizeof length);
            offset += length;
            const char* name = record + dirent_name_offset;
            if (std::strcmp(name, ".") == 0 || std::strcmp(name, "..") == 0) continue;
            TRY(copy_entry(from, to, name, depth));
        }
    }
}

}  // namespace

Result<void> copy_up(int from, int to, const char* subject) noexcept {
    // The mount point may be an O_PATH fd: open the directory itself for reading.
    UniqueFd directory(::openat(from, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!directory) return fail_sys(errno, "tmpcopyup: open", subject);
    auto copied = copy_entries(directory.get(), to, 0);
    if (!copied) {
        Error error = copied.error();
        return fail(error.context(subject));
    }
    return {};
}

}  // namespace husk::mnt
