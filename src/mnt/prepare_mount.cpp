// Turning one config.md mount into a PreparedMount, in the parent.
//
// Bind sources are opened here, in the parent, and cloned in the parent with open_tree(OPEN_TREE_CLONE): the
// result is a detached mount tree that the child attaches with move_mount. Why the parent: the source is a
// host path, and the parent still sees the host exactly as the user meant it; the child may already be in a
// user namespace where the source is unreachable or its mounts are locked. An O_PATH fd alone would not do
// for the child: mount(2) and open_tree(2) refuse to bind a mount of another mount namespace (EINVAL), also
// a detached tree made elsewhere, while a detached tree can be attached in any namespace. So the path is
// resolved once, here, into an O_PATH fd; a copy is cloned from it now (it proves the source can be bound
// and is what the /proc check looks at) and again, by the parent, when the child is about to attach it
// (clone_bind_source): a mount's unique id is given at clone time, and mountinfo lists mounts in id order.
// Each copy is made a slave right away so that nothing mounted inside it later can propagate back to the
// host's peer group.
#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <linux/magic.h>

#include <linux/limits.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <string_view>

#include "base/sys.hpp"
#include "mnt/resolve.hpp"
#include "mnt/rootfs_internal.hpp"

namespace husk::mnt {
namespace {

// Files in /proc that lxcfs-like tools cover with their own; any other mount inside /proc is refused (as
// runc does): covering /proc/self/attr or /proc/sys entries is a known escape route.
constexpr std::array<std::string_view, 10> procfs_covers = {
    "/proc/cpuinfo", "/proc/diskstats", "/proc/meminfo", "/proc/stat", "/proc/swaps",
    "/proc/uptime", "/proc/loadavg", "/proc/slabinfo", "/proc/sys/kernel/ns_last_pid",
    "/proc/sys/crypto/fips_enabled",
};

Result<void> check_procfs_destination(PreparedMount& prepared) {
    const std::string& dest = prepared.destination;
    if (dest == "/proc") {
        // Only procfs itself (a new one, or a bind of one) may sit at /proc.
        if (prepared.kind == MountKind::bind) {
            struct statfs fs {};
            if (::fstatfs(prepared.tree.get(), &fs) != 0) return fail_sys(errno, "statfs bind source");
            if (fs.f_type != PROC_SUPER_MAGIC) return fail_msg("\"/proc\" cannot be bind mounted from a non-procfs source");
        }
        return {};
    }
    if (dest.starts_with("/proc/")) {
        for (auto allowed : procfs_covers) {
            if (dest == allowed) {
                prepared.allowed_on_procfs = true;
                return {};
            }
        }
        return fail_msg("\"" + dest + "\" cannot be mounted because it is inside /proc");
    }
    return {};
}

// A detached, slave copy of the bind source opened in prepare.
Result<UniqueFd> clone_source(const PreparedMount& prepared, const char* subject) {
    unsigned flags = OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH | (prepared.recursive ? AT_RECURSIVE : 0u);
    UniqueFd tree(sys::open_tree(prepared.source.get(), "", flags));
    if (!tree) return fail_sys(errno, "open_tree bind source", subject);
    mount_attr slave{};
    slave.propagation = MS_SLAVE;
    if (sys::mount_setattr(tree.get(), "", AT_EMPTY_PATH | AT_RECURSIVE, &slave) != 0)
        return fail_sys(errno, "make bind source a slave", subject);
    return tree;
}

Result<void> prepare_bind(const spec::Mount& mount, const MountOptions& options, const std::string& bundle,
                          bool rootless, PreparedMount& prepared) {
    if (mount.source.empty()) return fail_msg("source: a bind mount needs a source");
    // config.md: "Path values for bind mounts are either absolute or relative to the bundle."
    std::string source = mount.source;
    if (source[0] != '/' && !bundle.empty()) source = bundle + "/" + source;
    // Symlinks are followed, as open_tree(2) and mount(8) do for a bind source.
    prepared.source.reset(::open(source.c_str(), O_PATH | O_CLOEXEC));
    if (!prepared.source) return fail_sys(errno, "open bind source", source);
    struct stat st {};
    if (::fstat(prepared.source.get(), &st) != 0) return fail_sys(errno, "stat bind source", source);
    prepared.target = S_ISDIR(st.st_mode) ? TargetKind::directory : TargetKind::file;
    // "bind" copies one mount, "rbind" the subtree (mount(8)).
    prepared.recursive = options.recursive_bind();
    if (!rootless) prepared.tree = TRY(clone_source(prepared, source.c_str()));
    return {};
}

// Filesystem data as fsconfig(2) parameters: "mode=755" -> SET_STRING mode 755, "newinstance" -> SET_FLAG.
// An option holding several comma-separated ones ("mode=755,size=1m") is split, as mount(2) data would be.
void add_data(const std::vector<std::string>& data, std::vector<FsParameter>& parameters) {
    for (const auto& option : data) {
        std::size_t i = 0;
        while (i <= option.size()) {
            std::size_t end = option.find(',', i);
            if (end == std::string::npos) end = option.size();
            std::string item = option.substr(i, end - i);
            i = end + 1;
            if (item.empty()) continue;
            std::size_t equals = item.find('=');
            if (equals == std::string::npos)
                parameters.push_back(FsParameter{item, "", true});
            else
                parameters.push_back(FsParameter{item.substr(0, equals), item.substr(equals + 1), false});
        }
    }
}

}  // namespace

Result<UniqueFd> clone_bind_source(const RootfsPlan& plan, std::size_t index) {
    if (index >= plan.mounts.size() || plan.mounts[index].kind != MountKind::bind)
        return fail_sys(EPROTO, "bind tree request", "mounts[" + std::to_string(index) + "] is not a bind mount");
    const PreparedMount& mount = plan.mounts[index];
    auto tree = clone_source(mount, mount.destination.c_str());
    if (!tree) return fail(tree.error().context("mounts[" + std::to_string(index) + "]"));
    return tree;
}

Result<UniqueFd> clone_bind_source_here(const RootfsPlan& plan, std::size_t index) noexcept {
    const PreparedMount& mount = plan.mounts[index];
    const char* subject = mount.destination.c_str();
    // The source's path as the fd opened in prepare names it; "/proc/thread-self/fd/N" itself would lead to
    // the parent's mount namespace, whose mounts open_tree does not clone from here.
    char link[64] = "/proc/thread-self/fd/";
    std::size_t used = std::strlen(link);
    char digits[16];
    std::size_t count = 0;
    for (unsigned fd = static_cast<unsigned>(mount.source.get()); count == 0 || fd != 0; fd /= 10) digits[count++] = static_cast<char>('0' + fd % 10);
    while (count > 0) link[used++] = digits[--count];
    link[used] = '\0';
    char path[PATH_MAX];
    ssize_t length = ::readlink(link, path, sizeof path - 1);
    if (length < 0) return fail_sys(errno, "readlink bind source", subject);
    path[length] = '\0';
    unsigned flags = OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | (mount.recursive ? AT_RECURSIVE : 0u);
    UniqueFd tree(sys::open_tree(AT_FDCWD, path, flags));
    if (!tree) return fail_sys(errno, "open_tree bind source", path);
    struct stat opened {}, cloned {};
    if (::fstat(mount.source.get(), &opened) != 0 || ::fstat(tree.get(), &cloned) != 0)
        return fail_sys(errno, "stat bind source", path);
    if (opened.st_dev != cloned.st_dev || opened.st_ino != cloned.st_ino)
        return fail_sys(ESTALE, "bind source changed since it was opened", path);
    mount_attr slave{};
    slave.propagation = MS_SLAVE;
    if (sys::mount_setattr(tree.get(), "", AT_EMPTY_PATH | AT_RECURSIVE, &slave) != 0)
        return fail_sys(errno, "make bind source a slave", subject);
    return tree;
}

Result<PreparedMount> prepare_mount(const spec::Mount& mount, const std::string& bundle,
                                    const std::string& cgroup2_bind, bool rootless) {
    PreparedMount prepared;
    if (mount.destination.empty()) return fail_msg("destination: empty");
    prepared.destination = clean_path(mount.destination);
    if (!mount.uid_mappings.empty() || !mount.gid_mappings.empty())
        return fail_msg("uidMappings/gidMappings: idmapped mounts are not implemented");
    auto options = parse_mount_options(mount.options);
    if (!options) return fail(options.error().context("options"));

    prepared.attributes = mount_attributes(*options);
    prepared.recursive_set = options->recursive_set;
    prepared.recursive_clear = options->recursive_clear;
    prepared.propagation = options->propagation;

    if (options->remount()) {
        prepared.kind = MountKind::remount;
    } else if (options->bind() || mount.type == "bind") {
        prepared.kind = MountKind::bind;
        TRY(prepare_bind(mount, *options, bundle, rootless, prepared));
    } else {
        if (mount.type.empty()) return fail_msg("type: required unless options hold \"bind\" or \"rbind\"");
        prepared.kind = MountKind::filesystem;
        // husk is cgroup v2 only (docs/ARCHITECTURE.md, "cgroups"); podman and others still write type "cgroup".
        prepared.fs_type = mount.type == "cgroup" ? "cgroup2" : mount.type;
        if (prepared.fs_type == "cgroup2" && !cgroup2_bind.empty()) {
            // Its options would be the host hierarchy's root options, set host-wide by a new mount there.
            if (!options->data.empty())
                return fail_msg("options: \"" + options->data.front() + "\" would change the options of the host's "
                                "cgroup2 hierarchy: a container without a cgroup namespace of its own gets the "
                                "hierarchy husk sees, bound, with per-mount options only");
            spec::Mount bound = mount;
            bound.type = "bind";
            bound.source = cgroup2_bind;
            bound.options.push_back("bind");
            return prepare_mount(bound, bundle, std::string(), rootless);
        }
        if (!mount.source.empty()) prepared.parameters.push_back(FsParameter{"source", mount.source, false});
        add_data(options->data, prepared.parameters);
        // A read-only /dev that husk fills stays writable until the devices exist (runc does the same).
        prepared.readonly_after_devices = prepared.destination == "/dev" && (options->flags & MS_RDONLY) != 0;
        for (auto& key : superblock_flag_keys(*options)) {
            if (key == "ro" && prepared.readonly_after_devices) continue;
            prepared.parameters.push_back(FsParameter{std::move(key), "", true});
        }
        if (prepared.readonly_after_devices) prepared.attributes.set &= ~std::uint64_t{MOUNT_ATTR_RDONLY};
        prepared.copy_up = options->copy_up;
        // As runc: a tmpfs without "mode=" gets the mode of the directory it covers, not tmpfs's 1777, so
        // podman's `--tmpfs /etc` stays 0755 instead of becoming writable by every user.
        prepared.mode_of_target = prepared.fs_type == "tmpfs" &&
                                  std::none_of(prepared.parameters.begin(), prepared.parameters.end(),
                                               [](const FsParameter& p) { return p.key == "mode"; });
    }
    // runc copies up only into a tmpfs; anything else would be a filesystem husk writes into unasked.
    if (options->copy_up && (prepared.kind != MountKind::filesystem || prepared.fs_type != "tmpfs"))
        return fail_msg("options: \"tmpcopyup\" applies only to a new tmpfs");
    if (prepared.kind == MountKind::remount && !options->data.empty())
        return fail_msg("options: filesystem data (\"" + options->data.front() +
                        "\") cannot be changed by \"remount\": husk remounts only per-mount flags");
    TRY(check_procfs_destination(prepared));
    return prepared;
}

}  // namespace husk::mnt
