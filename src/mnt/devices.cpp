// /dev contents: config-linux.md "Devices" and "Default Devices", and the symlinks runc makes.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>

#include "base/sys.hpp"
#include "mnt/mount_api.hpp"
#include "mnt/resolve.hpp"
#include "mnt/rootfs_internal.hpp"

namespace husk::mnt {
namespace {

struct DefaultDevice {
    const char* path;
    unsigned major;
    unsigned minor;
};

// config-linux.md "Default Devices" (console and ptmx are handled apart); all char devices, 0666, root.
constexpr DefaultDevice default_devices[] = {
    {"/dev/null", 1, 3}, {"/dev/zero", 1, 5}, {"/dev/full", 1, 7},
    {"/dev/random", 1, 8}, {"/dev/urandom", 1, 9}, {"/dev/tty", 5, 0},
};

Result<mode_t> device_type(const std::string& type) {
    if (type == "c" || type == "u") return S_IFCHR;  // "u": unbuffered character device
    if (type == "b") return S_IFBLK;
    if (type == "p") return S_IFIFO;
    return fail_msg("type: unknown device type \"" + type + "\" (expected c, b, u or p)");
}

Result<PreparedDevice> make_device(const std::string& path, mode_t type, dev_t rdev, mode_t permissions, uid_t uid,
                                   gid_t gid) {
    PreparedDevice device;
    device.path = clean_path(path);
    if (device.path == "/") return fail_msg("path: a device cannot replace the container's root");
    auto [parent, name] = split_path(device.path);
    device.parent = std::move(parent);
    device.name = std::move(name);
    device.mode = type | (permissions & 07777);
    device.rdev = type == S_IFIFO ? 0 : rdev;
    device.uid = uid;
    device.gid = gid;
    if (type != S_IFIFO) device.host_tree = open_host_device(device.path.c_str(), type, device.rdev);
    return device;
}

}  // namespace

UniqueFd open_host_device(const char* path, mode_t type, dev_t rdev) noexcept {
    struct stat st {};
    if (::stat(path, &st) != 0 || (st.st_mode & S_IFMT) != type || st.st_rdev != rdev) return {};
    UniqueFd tree(sys::open_tree(AT_FDCWD, path, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC));
    // Re-check what was actually cloned: the path could have changed between stat and open_tree.
    if (!tree || ::fstat(tree.get(), &st) != 0 || (st.st_mode & S_IFMT) != type || st.st_rdev != rdev) return {};
    return tree;
}

Result<void> prepare_devices(const spec::Spec& spec, RootfsPlan& plan) {
    static const std::vector<spec::Device> none;
    const auto& devices = spec.linux ? spec.linux->devices : none;
    // A linux.devices entry with a default's path replaces the default (runc does the same).
    for (const auto& def : default_devices) {
        bool replaced = false;
        for (const auto& device : devices) replaced = replaced || clean_path(device.path) == def.path;
        if (!replaced) plan.devices.push_back(TRY(make_device(def.path, S_IFCHR, makedev(def.major, def.minor), 0666, 0, 0)));
    }
    for (std::size_t i = 0; i < devices.size(); ++i) {
        const auto& device = devices[i];
        auto prepared = [&]() -> Result<PreparedDevice> {
            if (device.path.empty()) return fail_msg("path: empty");
            mode_t type = TRY(device_type(device.type));
            if (device.major < 0 || device.minor < 0 || device.major > 0xfffff || device.minor > 0xfffff)
                return fail_msg("major/minor: out of range");
            // runtime-spec leaves fileMode optional; runc's default is 0666.
            mode_t permissions = device.file_mode ? static_cast<mode_t>(*device.file_mode) : 0666;
            return make_device(device.path, type,
                               makedev(static_cast<unsigned>(device.major), static_cast<unsigned>(device.minor)),
                               permissions, device.uid.value_or(0), device.gid.value_or(0));
        }();
        if (!prepared) return fail(prepared.error().context("linux.devices[" + std::to_string(i) + "]"));
        plan.devices.push_back(std::move(*prepared));
    }
    // runc's /dev symlinks; /dev/core only where the kernel has /proc/kcore (CONFIG_PROC_KCORE).
    plan.dev_symlinks = {{"/proc/self/fd", "fd"}, {"/proc/self/fd/0", "stdin"},
                         {"/proc/self/fd/1", "stdout"}, {"/proc/self/fd/2", "stderr"}};
    if (::access("/proc/kcore", F_OK) == 0) plan.dev_symlinks.push_back({"/proc/kcore", "core"});
    return {};
}

Result<void> apply_devices(const RootfsPlan& plan, int root_fd) noexcept {
    for (const auto& device : plan.devices) {
        UniqueFd parent = TRY(open_mount_point(root_fd, device.parent.c_str(), Create::directory));
        const char* name = device.name.c_str();
        if (::mknodat(parent.get(), name, device.mode, device.rdev) == 0) {
            // Exact ownership and mode, whatever the umask.
            if (::fchownat(parent.get(), name, device.uid, device.gid, AT_SYMLINK_NOFOLLOW) != 0)
                return fail_sys(errno, "chown device", device.path.c_str());
            if (::fchmodat(parent.get(), name, device.mode & 07777, 0) != 0)
                return fail_sys(errno, "chmod device", device.path.c_str());
            continue;
        }
        if (errno == EEXIST) continue;  // the rootfs has one already; runc keeps it too
        if (errno != EPERM) return fail_sys(errno, "mknod", device.path.c_str());
        // No CAP_MKNOD over the filesystem (a user namespace): bind the host's node instead. Without root it
        // could not be cloned in prepare: cloned here, from the host's /dev our mount namespace still shows.
        UniqueFd cloned_here;
        if (!device.host_tree) cloned_here = open_host_device(device.path.c_str(), device.mode & S_IFMT, device.rdev);
        const int host_node = device.host_tree ? device.host_tree.get() : cloned_here.get();
        if (host_node < 0) return fail_sys(EPERM, "mknod (and the host has no such device to bind)", device.path.c_str());
        UniqueFd target = TRY(open_mount_point(root_fd, device.path.c_str(), Create::file));
        TRY(attach(host_node, target.get(), device.path.c_str()));
    }

    UniqueFd dev = TRY(open_mount_point(root_fd, "/dev", Create::directory));
    // config-linux.md "Default Devices": /dev/ptmx is a symlink to the container's own devpts ptmx.
    if (::unlinkat(dev.get(), "ptmx", 0) != 0 && errno != ENOENT) return fail_sys(errno, "remove", "/dev/ptmx");
    if (::symlinkat("pts/ptmx", dev.get(), "ptmx") != 0) return fail_sys(errno, "symlink", "/dev/ptmx");
    for (const auto& link : plan.dev_symlinks) {
        if (::symlinkat(link.target.c_str(), dev.get(), link.name.c_str()) != 0 && errno != EEXIST)
            return fail_sys(errno, "symlink in /dev", link.name.c_str());
    }
    return {};
}

}  // namespace husk::mnt
