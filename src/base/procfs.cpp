#include "base/procfs.hpp"

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <cerrno>

#include "base/sys.hpp"

namespace husk {
namespace {

UniqueFd open_beneath(int dir, const char* path, std::uint64_t flags) {
    open_how how{};
    how.flags = flags | O_CLOEXEC | O_NOFOLLOW;
    how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_XDEV | RESOLVE_NO_MAGICLINKS;
    return UniqueFd(sys::openat2(dir, path, &how));
}

}  // namespace

Result<UniqueFd> open_proc_pid(pid_t pid, const char* proc) {
    UniqueFd root(::open(proc, O_PATH | O_DIRECTORY | O_CLOEXEC));
    if (!root) return fail_sys(errno, "open", proc);
    struct statfs fs{};
    if (::fstatfs(root.get(), &fs) != 0) return fail_sys(errno, "fstatfs", proc);
    if (fs.f_type != PROC_SUPER_MAGIC) return fail_sys(ENOTSUP, "not procfs", proc);
    std::string name = std::to_string(pid);
    UniqueFd dir = open_beneath(root.get(), name.c_str(), O_PATH | O_DIRECTORY);
    if (!dir) return fail_sys(errno, "open", std::string(proc) + "/" + name);
    return dir;
}

Result<void> write_proc_file(int pid_dir, const char* name, std::string_view content) {
    UniqueFd file = open_beneath(pid_dir, name, O_WRONLY);
    if (!file) return fail_sys(errno, "open", name);
    ssize_t n = ::write(file.get(), content.data(), content.size());
    if (n < 0) return fail_sys(errno, "write", name);
    if (static_cast<std::size_t>(n) != content.size()) return fail_sys(EIO, "short write", name);
    return {};
}

}  // namespace husk
