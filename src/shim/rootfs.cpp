#include "shim/rootfs.hpp"

#include <sys/mount.h>
#include <unistd.h>

#include <cerrno>

#include "mnt/mount_options.hpp"

namespace husk::shim {
namespace {

// One mount the way containerd's mount package does it: a bind (then a remount for ro and the like), or a
// filesystem with its data ("lowerdir=...,upperdir=...").
Result<void> mount_one(const ttrpc::Mount& mount, const std::string& target) {
    auto options = TRY(mnt::parse_mount_options(mount.options));
    std::string data;
    for (const auto& word : options.data) data += (data.empty() ? "" : ",") + word;
    if (data.size() >= 4096) return fail_msg("rootfs mount " + mount.type + ": options longer than a page (" + std::to_string(data.size()) + " bytes)");
    const unsigned long per_mount = options.flags & ~(MS_BIND | MS_REC | MS_REMOUNT);
    if (options.bind()) {
        if (::mount(mount.source.c_str(), target.c_str(), nullptr, MS_BIND | (options.recursive_bind() ? MS_REC : 0), nullptr) != 0)
            return fail_sys(errno, "mount (bind) " + mount.source + " on", target);
        if (per_mount != 0 && ::mount(nullptr, target.c_str(), nullptr, MS_REMOUNT | MS_BIND | per_mount, nullptr) != 0) {
            int err = errno;
            ::umount2(target.c_str(), MNT_DETACH);
            return fail_sys(err, "remount " + target + " with the options of", mount.source);
        }
    } else if (::mount(mount.source.c_str(), target.c_str(), mount.type.c_str(), per_mount, data.c_str()) != 0) {
        return fail_sys(errno, "mount " + mount.type + " " + mount.source + " on", target);
    }
    for (unsigned long propagation : options.propagation) ::mount(nullptr, target.c_str(), nullptr, propagation, nullptr);
    return {};
}

}  // namespace

Result<void> mount_rootfs(const std::string& bundle, const std::vector<ttrpc::Mount>& mounts) {
    const std::string target = bundle + "/rootfs";
    for (std::size_t i = 0; i < mounts.size(); ++i) {
        if (auto mounted = mount_one(mounts[i], target); !mounted) {
            (void)unmount_rootfs(bundle);
            return mounted;
        }
    }
    return {};
}

Result<void> unmount_rootfs(const std::string& bundle) {
    const std::string target = bundle + "/rootfs";
    for (int i = 0; i < 64; ++i) {
        if (::umount2(target.c_str(), MNT_DETACH | UMOUNT_NOFOLLOW) != 0) {
            if (errno == EINVAL || errno == ENOENT) return {};
            return fail_sys(errno, "umount", target);
        }
    }
    return fail_msg("umount " + target + ": still mounted after 64 unmounts");
}

}  // namespace husk::shim
