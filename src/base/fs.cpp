#include "base/fs.hpp"

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <utility>

namespace husk {

Result<UniqueFd> open_fd(const std::string& path, int flags, mode_t mode) {
    return open_fd_at(AT_FDCWD, path, flags, mode);
}

Result<UniqueFd> open_fd_at(int dirfd, const std::string& path, int flags, mode_t mode) {
    UniqueFd fd(::openat(dirfd, path.c_str(), flags | O_CLOEXEC, mode));
    if (!fd) return fail_sys(errno, "open", path);
    return fd;
}

Result<UniqueFd> open_fd_at(int dirfd, const std::string& path, int flags, std::string_view subject) {
    UniqueFd fd(::openat(dirfd, path.c_str(), flags | O_CLOEXEC));
    if (!fd) return fail_sys(errno, "open", subject);
    return fd;
}

Result<Pipe> open_pipe() noexcept {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) return std::unexpected(Error::sys(errno, "pipe2"));
    return Pipe{UniqueFd(fds[0]), UniqueFd(fds[1])};
}

namespace {

// "a FIFO", for the message that names what was refused.
const char* file_kind(mode_t mode) {
    switch (mode & S_IFMT) {
    case S_IFDIR: return "a directory";
    case S_IFCHR: return "a character device";
    case S_IFBLK: return "a block device";
    case S_IFIFO: return "a FIFO";
    case S_IFSOCK: return "a socket";
    default: return "a special file";
    }
}

Error too_large(std::size_t max_bytes) {
    std::string limit = max_bytes % (1 << 20) == 0 ? std::to_string(max_bytes >> 20) + " MiB"
                                                    : std::to_string(max_bytes) + " bytes";
    return Error::msg("larger than husk reads (" + limit + ")");
}


// Reads fd to its end after what `out` holds already.
Result<void> append_fd(int fd, std::string& out, std::size_t max_bytes) {
    char buffer[8192];
    for (;;) {
        ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return fail_sys(errno, "read");
        if (n == 0) break;
        if (out.size() + static_cast<std::size_t>(n) > max_bytes) return fail(too_large(max_bytes));
        out.append(buffer, static_cast<std::size_t>(n));
    }
    return {};
}

}  // namespace

Result<std::string> read_fd(int fd, std::size_t max_bytes) {
    std::string out;
    TRY(append_fd(fd, out, max_bytes));
    return out;
}

Result<std::string> read_file_at(int dirfd, const std::string& name, std::size_t max_bytes, int extra_flags) {
    UniqueFd fd = TRY(open_fd_at(dirfd, name, O_RDONLY | O_NONBLOCK | extra_flags));
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0) return fail_sys(errno, "fstat", name);
    if (!S_ISREG(st.st_mode))
        return fail(Error::msg(std::string("is ") + file_kind(st.st_mode) + ", not a regular file")
                        .context("read \"" + name + "\""));
    if (static_cast<std::size_t>(st.st_size) > max_bytes) return fail(too_large(max_bytes).context("read \"" + name + "\""));
    // A file whose size fstat knows (a state record, a config) is read with one call: st_size + 1 bytes asked
    // for and st_size read means its end was reached. procfs and cgroupfs files say 0 and are read in pieces,
    // as is a file that grew meanwhile.
    std::string content;
    auto size = static_cast<std::size_t>(st.st_size);
    if (size > 0) {
        content.resize(size + 1);
        ssize_t n;
        do n = ::read(fd.get(), content.data(), size + 1);
        while (n < 0 && errno == EINTR);
        if (n < 0) return fail_sys(errno, "read", name);
        content.resize(static_cast<std::size_t>(n));
        if (content.size() == size) return content;
        if (content.size() > max_bytes) return fail(too_large(max_bytes).context("read \"" + name + "\""));
    }
    auto rest = append_fd(fd.get(), content, max_bytes);
    if (!rest && rest.error().err == 0) return fail(rest.error().context("read \"" + name + "\""));
    if (!rest) return fail_sys(rest.error().err, "read", name);
    return content;
}

Result<std::string> read_file(const std::string& path, std::size_t max_bytes) {
    return read_file_at(AT_FDCWD, path, max_bytes);
}

Result<void> write_all(int fd, std::string_view content) {
    while (!content.empty()) {
        ssize_t n = ::write(fd, content.data(), content.size());
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return fail_sys(errno, "write");
        content.remove_prefix(static_cast<std::size_t>(n));
    }
    return {};
}

Result<void> check_preserved_fds(int count) {
    for (long fd = 3; fd < 3L + count; ++fd) {
        if (::fcntl(static_cast<int>(fd), F_GETFD) < 0)
            return fail_msg("--preserve-fds " + std::to_string(count) + ": fd " + std::to_string(fd) +
                            " is not open (the caller must pass every fd from 3 to " + std::to_string(2L + count) + ")");
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

// A temporary name of our own, made with O_EXCL | O_NOFOLLOW: the directory may be writable by others (a
// --verdict beside a sandbox's --bind-rw output), who could plant a symlink at a predictable name and have
// husk, as root, truncate and write the file it points to. A name that exists is never reused.
static Result<std::pair<UniqueFd, std::string>> create_temporary(int dirfd, const std::string& name, mode_t mode) {
    for (int attempt = 0; attempt < 16; ++attempt) {
        std::uint64_t nonce = 0;
        if (::getrandom(&nonce, sizeof nonce, 0) != static_cast<ssize_t>(sizeof nonce))
            return fail_sys(errno, "getrandom", "a temporary name for " + name);
        char hex[17];
        std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(nonce));
        std::string tmp = "." + name + "." + hex + ".tmp";
        UniqueFd fd(::openat(dirfd, tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode));
        if (fd) return std::pair{std::move(fd), tmp};
        if (errno != EEXIST) return fail_sys(errno, "open", tmp);
    }
    return fail_sys(EEXIST, "create a temporary file for", name);
}

Result<void> write_file_atomic(int dirfd, const std::string& name, std::string_view content, mode_t mode) {
    auto [fd, tmp] = TRY(create_temporary(dirfd, name, mode));
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
