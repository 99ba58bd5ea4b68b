#include "cgroup/delegation.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "base/fs.hpp"

namespace husk::cgroup {
namespace {

// The cgroup directory at `path` (below the mount) belongs to uid, and uid may write the two files a
// delegate writes: cgroup.procs (moving processes in) and cgroup.subtree_control (enabling controllers).
bool delegated_to(const std::string& mount, const std::string& path, uid_t uid) {
    const std::string dir = mount + path;
    struct stat st {};
    if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != uid) return false;
    for (const char* file : {"cgroup.procs", "cgroup.subtree_control"})
        if (::faccessat(AT_FDCWD, (dir + "/" + file).c_str(), W_OK, AT_EACCESS) != 0) return false;
    return true;
}

}  // namespace

Result<std::string> own_cgroup_path() {
    std::string text = TRY(read_file("/proc/self/cgroup"));
    for (std::size_t at = 0; at < text.size();) {
        std::size_t end = text.find('\n', at);
        if (end == std::string::npos) end = text.size();
        std::string_view line(text.data() + at, end - at);
        if (line.starts_with("0::/")) return std::string(line.substr(3));
        at = end + 1;
    }
    return fail_msg("/proc/self/cgroup has no cgroup v2 line (0::)");
}

Result<std::optional<std::string>> find_delegated_subtree(const std::string& mount, std::string_view own, uid_t uid) {
    // Walk up from husk's own cgroup while each directory is the caller's; the last one reached is the top of
    // the delegation. The v2 root itself is never delegated.
    std::string path(own);
    while (!path.empty() && path.back() == '/') path.pop_back();
    std::optional<std::string> top;
    while (!path.empty() && delegated_to(mount, path, uid)) {
        top = path;
        path.erase(path.rfind('/'));
    }
    return top;
}

Result<std::optional<std::string>> find_own_delegated_subtree(const std::string& mount) {
    return find_delegated_subtree(mount, TRY(own_cgroup_path()), ::geteuid());
}

}  // namespace husk::cgroup
