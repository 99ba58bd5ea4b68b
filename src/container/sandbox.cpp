// `husk sandbox`'s config: the host facts the pure builder (spec/sandbox_config.cpp) needs, looked up here.
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>

#include "container/bundle.hpp"
#include "container/rootless.hpp"
#include "husk/container.hpp"
#include "spec/sandbox_config.hpp"
#include "state/state_dir.hpp"

namespace husk {
namespace {

// A path of the caller's, relative to its working directory, as an absolute one (symlinks kept: the bind
// follows them when it is made).
std::string absolute(const std::string& path) {
    if (!path.empty() && path[0] == '/') return path;
    char cwd[4096];
    if (::getcwd(cwd, sizeof cwd) == nullptr) return path;  // validation then names the relative path
    return std::string(cwd) + "/" + path;
}

// The host path with every symlink resolved, if it exists and is of the wanted type.
std::optional<std::string> resolved(const char* path, mode_t type) {
    char buffer[PATH_MAX];
    if (::realpath(path, buffer) == nullptr) return std::nullopt;
    struct stat st {};
    if (::stat(buffer, &st) != 0 || (st.st_mode & S_IFMT) != type) return std::nullopt;
    return std::string(buffer);
}

// The directories programs and their libraries live in. On a merged-/usr host (Debian 12) /bin, /sbin and
// /lib* are symlinks into /usr: each is bound from its target at its own path, so that /bin/sh, the ELF
// interpreter /lib64/ld-linux-x86-64.so.2 and #! lines resolve, without a symlink to make in the root.
std::vector<spec::SandboxBind> host_view() {
    std::vector<spec::SandboxBind> view;
    for (const char* path : {"/usr", "/bin", "/sbin", "/lib", "/lib64", "/lib32", "/libx32"})
        if (auto source = resolved(path, S_IFDIR)) view.push_back({*source, path, false});
    return view;
}

// ld.so.cache, so that the dynamic loader finds libraries as on the host, and the alternatives system's links
// (Debian's /usr/bin/awk, editor, ... point through /etc/alternatives); with the host's network, the resolver's
// files as well. Never passwd, shadow or the rest of /etc: mnt writes the sandbox's own accounts.
std::vector<spec::SandboxBind> host_etc(spec::SandboxNet net) {
    std::vector<const char*> files = {"/etc/ld.so.cache"};
    if (net == spec::SandboxNet::host) files.insert(files.end(), {"/etc/resolv.conf", "/etc/hosts", "/etc/nsswitch.conf"});
    std::vector<spec::SandboxBind> binds;
    for (const char* file : files)
        if (auto source = resolved(file, S_IFREG)) binds.push_back({*source, file, false});
    if (auto source = resolved("/etc/alternatives", S_IFDIR)) binds.push_back({*source, "/etc/alternatives", false});
    return binds;
}

// The directories above the root are reached by the container's init before it takes its ids (mnt::hold_rootfs),
// so a 0700 parent (mktemp -d, $XDG_RUNTIME_DIR) is fine; the --rootfs directory itself becomes "/" and must let
// the sandbox's ids search it. Said here, with what to do, rather than as the child's bare "permission denied".
Result<void> check_searchable_root(const std::string& rootfs) {
    struct stat st {};
    if (::stat(rootfs.c_str(), &st) != 0) return fail_sys(errno, "--rootfs", rootfs);
    if (!(st.st_mode & S_IXOTH))
        return fail_msg("--rootfs " + rootfs + ": the sandbox's ids (host uids from " +
                        std::to_string(spec::sandbox_host_id_base) + " in its user namespace) cannot search it: it "
                        "is not searchable by others (chmod o+x it, or use --no-userns)");
    return {};
}

// A --rootfs is a host directory: the sandbox makes no mount point in it (the host view has a tmpfs root for
// that), so each one must be there already. Checked by path text; mnt still resolves each inside the root.
Result<void> check_mount_points(const spec::SandboxSettings& settings) {
    std::vector<std::string> points = {"/proc", "/dev", "/tmp"};
    for (const spec::SandboxBind& bind : settings.binds) points.push_back(bind.destination);
    for (const std::string& point : points) {
        struct stat st {};
        if (::lstat((settings.rootfs + point).c_str(), &st) != 0)
            return fail_msg("--rootfs " + settings.rootfs + ": " + point +
                            " is not in it, and husk sandbox makes no mount point in a host directory (create it "
                            "there, or choose another destination)");
    }
    return {};
}

// The state root holds every container's state and control sockets, and is where the tmpfs root is mounted:
// a bind of it, of a path in it, or of a directory holding it (a --rootfs too: `--rootfs /`) would show the
// program other containers' state (writable with --bind-rw) or its own root. Compared after resolving
// symlinks, `.` and `..` on both sides.
Result<void> check_state_root_hidden(const Runtime& runtime, const spec::SandboxSettings& settings) {
    const std::string root = TRY(container::absolute_directory(runtime.root, "state root"));
    const auto within = [](const std::string& path, const std::string& dir) {
        return path == dir || dir == "/" || path.starts_with(dir + "/");
    };
    auto check = [&](const std::string& flag, const std::string& path) -> Result<void> {
        char buffer[PATH_MAX];
        if (::realpath(path.c_str(), buffer) == nullptr) return {};  // refused later, naming the path
        const std::string source(buffer);
        if (!within(source, root) && !within(root, source)) return {};
        return fail_msg(flag + " " + path + ": " + (source == root ? "is" : within(source, root) ? "is in" : "holds") +
                        " husk's state root " + root + ", which no sandbox may see (other containers' state and sockets)");
    };
    if (!settings.rootfs.empty()) TRY(check("--rootfs", settings.rootfs));
    for (const spec::SandboxBind& bind : settings.binds) TRY(check(bind.writable ? "--bind-rw" : "--bind", bind.source));
    return {};
}

}  // namespace

// The verdict (and husk's --log, opened for each message) are written after or while the program runs,
// through the path as the caller gave it: in a --bind-rw directory the program could make the name a
// directory (no verdict at all) or it or a component a symlink (husk, as root, writing wherever it points).
// Refused; compared with symlinks resolved.

Result<void> check_sandbox_output(const SandboxOutput& output, const spec::SandboxSettings& settings) {
    if (output.path.empty()) return {};
    const std::string path = absolute(output.path);
    char buffer[PATH_MAX];
    if (::realpath(path.substr(0, path.rfind('/') + 1).c_str(), buffer) == nullptr) return {};  // fails later, naming it
    const std::string dir(buffer);
    for (const spec::SandboxBind& bind : settings.binds) {
        if (!bind.writable || ::realpath(bind.source.c_str(), buffer) == nullptr) continue;
        const std::string source(buffer);
        if (dir == source || source == "/" || dir.starts_with(source + "/"))
            return fail_msg(output.flag + " " + output.path + ": is in --bind-rw " + bind.source +
                            ", where the program could replace or redirect it; choose a directory it cannot write");
    }
    return {};
}


Result<std::string> sandbox_config_json(const Runtime& runtime, spec::SandboxSettings settings,
                                        const std::vector<SandboxOutput>& outputs) {
    if (runtime.rootless) TRY(container::rootless_sandbox_maps(settings));
    for (spec::SandboxBind& bind : settings.binds) bind.source = absolute(bind.source);
    for (const SandboxOutput& output : outputs) TRY(check_sandbox_output(output, settings));
    TRY(state::make_root(runtime.root));
    TRY(check_state_root_hidden(runtime, settings));
    if (settings.rootfs.empty()) {
        // The tmpfs root needs a directory to cover (inside the container's mount namespace only): the state
        // root, which exists whenever husk runs a container, is husk's own, and is hidden that way as well.
        settings.tmpfs_root_at = TRY(container::absolute_directory(runtime.root, "state root"));
        settings.host_view = host_view();
        settings.host_etc = host_etc(settings.net);
    } else {
        settings.rootfs = TRY(container::absolute_directory(settings.rootfs, "--rootfs"));
        // Without root and with the caller's own ids alone, the program is the directory's owner.
        const bool owner_runs_it = runtime.rootless && settings.uid_map.size() == 1;
        if (settings.userns && !owner_runs_it) TRY(check_searchable_root(settings.rootfs));
        TRY(check_mount_points(settings));
    }
    return spec::sandbox_config_json(settings);
}

}  // namespace husk
