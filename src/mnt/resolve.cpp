#include "mnt/resolve.hpp"

#include <fcntl.h>
#include <linux/limits.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "base/sys.hpp"

namespace husk::mnt {

std::string clean_path(const std::string& path) {
    std::vector<std::string> parts;
    std::size_t i = 0;
    while (i < path.size()) {
        std::size_t end = path.find('/', i);
        if (end == std::string::npos) end = path.size();
        std::string part = path.substr(i, end - i);
        if (part == "..") {
            if (!parts.empty()) parts.pop_back();
        } else if (!part.empty() && part != ".") {
            parts.push_back(std::move(part));
        }
        i = end + 1;
    }
    std::string clean;
    for (const auto& part : parts) clean += "/" + part;
    return clean.empty() ? "/" : clean;
}

std::pair<std::string, std::string> split_path(const std::string& clean) {
    std::size_t slash = clean.rfind('/');
    if (slash == std::string::npos) return {"/", clean};
    return {slash == 0 ? "/" : clean.substr(0, slash), clean.substr(slash + 1)};
}

namespace {

// RESOLVE_IN_ROOT: "/" and ".." stop at root_fd; RESOLVE_NO_MAGICLINKS: no /proc/<pid>/root-style jumps.
int open_beneath(int root_fd, const char* path) noexcept {
    open_how how{};
    how.flags = O_PATH | O_CLOEXEC;
    how.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS;
    // openat2(2): EAGAIN when a concurrent rename or mount may have fooled the walk; just try again.
    for (int attempt = 0; attempt < 64; ++attempt) {
        int fd = sys::openat2(root_fd, path, &how);
        if (fd >= 0 || errno != EAGAIN) return fd;
    }
    return -1;
}

// Creates `name` in parent_fd as a directory or an empty file; an existing entry is fine.
bool create_entry(int parent_fd, const char* name, Create kind) noexcept {
    if (kind == Create::file) {
        int fd = ::openat(parent_fd, name, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd >= 0) ::close(fd);
        return fd >= 0 || errno == EEXIST;
    }
    return ::mkdirat(parent_fd, name, 0755) == 0 || errno == EEXIST;
}

}  // namespace

Result<UniqueFd> open_in_root(int root_fd, const char* path, Create create) noexcept {
    int fd = open_beneath(root_fd, path);
    if (fd >= 0) return UniqueFd(fd);
    if (errno != ENOENT || create == Create::nothing) return fail_sys(errno, "open", path);

    // Walk the path one prefix at a time, each resolved from the root, so a symlink anywhere on the way is
    // followed the same way the final open follows it.
    char buffer[PATH_MAX];
    std::size_t length = std::strlen(path);
    if (length >= sizeof buffer) return fail_sys(ENAMETOOLONG, "open", path);
    std::memcpy(buffer, path, length + 1);

    UniqueFd parent(open_beneath(root_fd, "/"));
    if (!parent) return fail_sys(errno, "open", "/");
    std::size_t i = 0;
    while (i < length) {
        while (i < length && buffer[i] == '/') ++i;
        if (i == length) break;
        std::size_t end = i;
        while (end < length && buffer[end] != '/') ++end;
        std::size_t next = end;
        while (next < length && buffer[next] == '/') ++next;
        const bool last = next == length;

        char saved = buffer[end];
        buffer[end] = '\0';
        UniqueFd current(open_beneath(root_fd, buffer));
        if (!current && errno == ENOENT) {
            Create kind = last ? create : Create::directory;
            if (!create_entry(parent.get(), buffer + i, kind))
                return fail_sys(errno, kind == Create::file ? "create file" : "mkdir", buffer);
            current.reset(open_beneath(root_fd, buffer));
            // Still missing after creating it: the name is a symlink to something that does not exist.
            if (!current && errno == ENOENT) return fail_sys(ENOENT, "resolve (dangling symlink)", buffer);
        }
        if (!current) return fail_sys(errno, "open", buffer);
        buffer[end] = saved;
        parent = std::move(current);
        i = end;
    }
    return parent;
}

namespace {

// `mount point "<path>" <text>`, built in the fixed-size Error without allocating (child side).
Error mount_point_error(const char* path, const char* text) noexcept {
    Error e = Error::sys(0, "mount point", path);
    for (const char* part : {" ", text}) std::strncat(e.what, part, sizeof e.what - std::strlen(e.what) - 1);
    return e;
}

}  // namespace

Result<UniqueFd> open_mount_point(int root_fd, const char* path, Create create) noexcept {
    UniqueFd target = TRY(open_in_root(root_fd, path, create));
    struct stat target_stat {}, root_stat {};
    if (::fstat(target.get(), &target_stat) != 0) return fail_sys(errno, "stat", path);
    if (::fstat(root_fd, &root_stat) != 0) return fail_sys(errno, "stat", "/");
    const bool names_root = std::strcmp(path, "/") == 0;
    if (!names_root && target_stat.st_dev == root_stat.st_dev && target_stat.st_ino == root_stat.st_ino)
        return fail(mount_point_error(path, "resolves to the container's root \"/\" through a symlink in the rootfs: "
                                            "it is not a directory inside the rootfs"));
    if (create == Create::directory && !S_ISDIR(target_stat.st_mode))
        return fail(mount_point_error(path, "is not a directory inside the rootfs (it resolves to a file)"));
    if (create == Create::file && S_ISDIR(target_stat.st_mode))
        return fail(mount_point_error(path, "resolves to a directory, but a file is mounted on it"));
    return target;
}

}  // namespace husk::mnt
