// Running without root (docs/rootless.md): where an unprivileged caller's state lives.
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <string>

#include "base/subordinate_ids.hpp"
#include "container/rootless.hpp"
#include "husk/container.hpp"
#include "ns/id_maps.hpp"

namespace husk {
namespace {

// A directory the caller owns, by an absolute path: what $XDG_RUNTIME_DIR must be to hold husk's state (the XDG
// Base Directory spec makes it 0700 and the user's; anything else is not used).
bool is_own_directory(const char* path) {
    if (path == nullptr || path[0] != '/') return false;
    struct stat st {};
    return ::stat(path, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == ::geteuid();
}

}  // namespace

Result<std::string> default_root(bool rootless) {
    if (!rootless) return std::string("/run/husk");
    if (const char* runtime_dir = std::getenv("XDG_RUNTIME_DIR"); is_own_directory(runtime_dir))
        return std::string(runtime_dir) + "/husk";
    std::string home = std::getenv("HOME") != nullptr ? std::getenv("HOME") : "";
    if (home.empty() || home[0] != '/') home = local_user(::geteuid()).home;
    if (home.empty() || home[0] != '/')
        return fail_msg("no state root: without root husk keeps its state in $XDG_RUNTIME_DIR/husk or "
                        "$HOME/.local/state/husk, and neither is set (give --root DIR)");
    return home + "/.local/state/husk";
}

namespace container {
namespace {

// The first of `ranges` holding at least `count` ids.
const IdRange* range_of(const std::vector<IdRange>& ranges, std::uint32_t count) {
    for (const IdRange& range : ranges)
        if (range.count >= count) return &range;
    return nullptr;
}

}  // namespace

Result<void> rootless_sandbox_maps(spec::SandboxSettings& settings) {
    if (!settings.userns)
        return fail_msg("--no-userns: without root the user namespace is what lets husk build the sandbox at all "
                        "(docs/rootless.md)");
    settings.device_rules = false;
    const uid_t uid = ::geteuid();
    const gid_t gid = ::getegid();
    const std::string name = local_user(uid).name;
    // Ids 1-65535 from a subordinate range when the helpers can map it: the program is then none of the
    // caller's ids (it runs as 65534). Else the caller's own ids alone, as the program's.
    constexpr std::uint32_t rest = spec::sandbox_id_count - 1;
    const bool helpers = ::access(ns::newuidmap_path, X_OK) == 0 && ::access(ns::newgidmap_path, X_OK) == 0;
    std::vector<IdRange> subuid, subgid;
    if (helpers) {
        subuid = TRY(subordinate_ids("/etc/subuid", name, uid));
        subgid = TRY(subordinate_ids("/etc/subgid", name, uid));
    }
    const IdRange* uids = range_of(subuid, rest);
    const IdRange* gids = range_of(subgid, rest);
    if (uids != nullptr && gids != nullptr) {
        settings.uid_map = {{0, uid, 1}, {1, uids->start, rest}};
        settings.gid_map = {{0, gid, 1}, {1, gids->start, rest}};
    } else {
        settings.uid_map = {{spec::sandbox_user, uid, 1}};
        settings.gid_map = {{spec::sandbox_user, gid, 1}};
    }
    return {};
}

}  // namespace container
}  // namespace husk
