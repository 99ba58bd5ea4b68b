#include "base/fs.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

namespace husk {

Result<UniqueFd> open_fd(const std::string& path, int flags, mode_t mode) {
    return open_fd_at(AT_FDCWD, path, flags, mode);
}

Result<UniqueFd> open_fd_at(int dirfd, const std::string& path, int flags, mode_t mode) {
    int fd = ::openat(dirfd, path.c_str(), flags | O_CLOEXEC, mode);
    if (fd < 0) return fail_sys(errno, "open", path);
    return UniqueFd(fd);
}

Result<std::string> read_fd(int fd) {
    std::string out;
    char buffer[8192];
    for (;;) {
        ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return fail_sys(errno, "read");
        if (n == 0) break;
        out.append(buffer, static_cast<std::size_t>(n));
    }
    return out;
}

Result<std::string> read_file_at(int dirfd, const std::string& name) {
    UniqueFd fd = TRY(open_fd_at(dirfd, name, O_RDONLY));
    auto content = read_fd(fd.get());
    if (!content) return fail_sys(content.error().err, "read", name);
    return content;
}

Result<std::string> read_file(const std::string& path) { return read_file_at(AT_FDCWD, path); }

Result<void> write_all(int fd, std::string_view content) {
    while (!content.empty()) {
        ssize_t n = ::write(fd, content.data(), content.size());
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return fail_sys(errno, "write");
        content.remove_prefix(static_cast<std::size_t>(n));
    }
    return {};
}

Result<void> write_existing_file(const std::string& path, std::string_view content) {
    UniqueFd fd = TRY(open_fd(path, O_WRONLY));
    ssize_t n = ::write(fd.get(), content.data(), content.size());
    if (n < 0) return fail_sys(errno, "write", path);
    if (static_cast<std::size_t>(n) != content.size()) return fail_sys(EIO, "short write", path);
    return {};
}

Result<void> write_file_atomic(int dirfd, const std::string& name, std::string_view content, mode_t mode) {
    std::string tmp = "." + name + ".tmp";
    UniqueFd fd = TRY(open_fd_at(dirfd, tmp, O_WRONLY | O_CREAT | O_TRUNC, mode));
    if (auto written = write_all(fd.get(), content); !written) {
        ::unlinkat(dirfd, tmp.c_str(), 0);
        return fail_sys(written.error().err, "write", tmp);
    }
    if (::fsync(fd.get()) != 0) {
        int err = errno;
        ::unlinkat(dirfd, tmp.c_str(), 0);
        return fail_sys(err, "fsync", tmp);
    }
    if (::renameat(dirfd, tmp.c_str(), dirfd, name.c_str()) != 0) {
        int err = errno;
        ::unlinkat(dirfd, tmp.c_str(), 0);
        return fail_sys(err, "rename", name);
    }
    return {};
}

}  // namespace husk
