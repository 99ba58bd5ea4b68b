#include "mnt/mount_api.hpp"

#include <fcntl.h>
#include <sys/mount.h>

#include <cerrno>
#include <cstring>

#include "base/sys.hpp"

namespace husk::mnt {
namespace {

// Appends " (text)" to the error's description, truncating to fit.
void append_detail(Error& error, const char* text) noexcept {
    std::size_t used = std::strlen(error.what);
    auto put = [&](const char* s) {
        for (; *s != '\0' && used + 1 < sizeof error.what; ++s) error.what[used++] = *s;
        error.what[used] = '\0';
    };
    put(" (");
    put(text);
    put(")");
}

// The fs context keeps messages ("e tmpfs: Bad value for 'size'"); the last error one says most.
Error fs_error(int err, int fs_fd, const char* op, const char* subject) noexcept {
    Error error = Error::sys(err, op, subject);
    char message[256];
    char last[256] = {};
    for (int i = 0; i < 16; ++i) {
        ssize_t n = ::read(fs_fd, message, sizeof message - 1);
        if (n <= 0) break;
        message[n] = '\0';
        if (n > 2 && message[0] == 'e' && message[1] == ' ') std::memcpy(last, message + 2, static_cast<std::size_t>(n - 1));
    }
    if (last[0] != '\0') append_detail(error, last);
    return error;
}

}  // namespace

Result<void> attach(int tree_fd, int target_fd, const char* subject) noexcept {
    if (sys::move_mount(tree_fd, "", target_fd, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) != 0)
        return fail_sys(errno, "move_mount onto", subject);
    return {};
}

Result<UniqueFd> clone_tree(int fd, bool recursive, const char* subject) noexcept {
    unsigned flags = OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH | (recursive ? AT_RECURSIVE : 0u);
    int tree = sys::open_tree(fd, "", flags);
    if (tree < 0) return fail_sys(errno, "open_tree (clone)", subject);
    return UniqueFd(tree);
}

Result<void> set_attributes(int fd, std::uint64_t set, std::uint64_t clear, bool recursive,
                            const char* subject) noexcept {
    if (set == 0 && clear == 0) return {};
    mount_attr attr{};
    attr.attr_set = set;
    attr.attr_clr = clear;
    unsigned flags = AT_EMPTY_PATH | (recursive ? AT_RECURSIVE : 0u);
    if (sys::mount_setattr(fd, "", flags, &attr) != 0) return fail_sys(errno, "mount_setattr", subject);
    return {};
}

Result<void> set_propagation(int fd, unsigned long flags, const char* subject) noexcept {
    mount_attr attr{};
    attr.propagation = flags & ~static_cast<unsigned long>(MS_REC);
    unsigned at_flags = AT_EMPTY_PATH | ((flags & MS_REC) ? AT_RECURSIVE : 0u);
    if (sys::mount_setattr(fd, "", at_flags, &attr) != 0) return fail_sys(errno, "set mount propagation of", subject);
    return {};
}

Result<UniqueFd> create_filesystem(const char* type, const FsParameter* parameters, std::size_t count,
                                   std::uint64_t attributes, const char* subject) noexcept {
    UniqueFd fs(sys::fsopen(type, FSOPEN_CLOEXEC));
    if (!fs) {
        Error error = Error::sys(errno, "fsopen", type);
        if (error.err == ENODEV) append_detail(error, "unknown filesystem type");
        return fail(error);
    }
    for (std::size_t i = 0; i < count; ++i) {
        const FsParameter& p = parameters[i];
        int rc = p.flag ? sys::fsconfig(fs.get(), FSCONFIG_SET_FLAG, p.key.c_str(), nullptr, 0)
                        : sys::fsconfig(fs.get(), FSCONFIG_SET_STRING, p.key.c_str(), p.value.c_str(), 0);
        if (rc != 0) {
            // "fsconfig size for" without allocating: the key is bounded by the buffer.
            char op[96] = "fsconfig ";
            std::size_t used = std::strlen(op);
            for (const char* k = p.key.c_str(); *k != '\0' && used + 5 < sizeof op; ++k) op[used++] = *k;
            std::memcpy(op + used, " for", 5);
            return fail(fs_error(errno, fs.get(), op, subject));
        }
    }
    if (sys::fsconfig(fs.get(), FSCONFIG_CMD_CREATE, nullptr, nullptr, 0) != 0)
        return fail(fs_error(errno, fs.get(), "create filesystem for", subject));
    int mount_fd = sys::fsmount(fs.get(), FSMOUNT_CLOEXEC, static_cast<unsigned>(attributes));
    if (mount_fd < 0) return fail_sys(errno, "fsmount", subject);
    return UniqueFd(mount_fd);
}

}  // namespace husk::mnt
