// MountOptions: one runtime-spec mount's "options" array sorted into what each kernel interface needs:
// per-mount flags (mount(2) MS_* vocabulary, as runc keeps them), propagation changes, recursive
// mount_setattr(2) attributes, and the filesystem's own data ("mode=755", "size=65536k").
// config.md "Linux mount options" lists the vocabulary; unknown words are filesystem data.
#pragma once

#include <linux/mount.h>

#include <cstdint>
#include <string>
#include <vector>

#include "husk/error.hpp"

namespace husk::mnt {

struct MountOptions {
    unsigned long flags = 0;    // MS_* turned on: MS_RDONLY, MS_NOSUID, ..., MS_BIND, MS_REC, MS_REMOUNT
    unsigned long cleared = 0;  // MS_* turned off explicitly: "rw" clears MS_RDONLY, "suid" MS_NOSUID, ...
    // Propagation changes in the order given (MS_PRIVATE, MS_SLAVE|MS_REC, ...), applied one after the other.
    std::vector<unsigned long> propagation;
    // mount_setattr(2) with AT_RECURSIVE for "rro", "rnosuid", "rnoatime", ... (MOUNT_ATTR_*).
    std::uint64_t recursive_set = 0;
    std::uint64_t recursive_clear = 0;
    std::vector<std::string> data;  // everything else, in order, one entry per option
    // "tmpcopyup" (runc's extension; podman asks for it on every tmpfs): the new tmpfs starts with a copy
    // of what the directory it covers held.
    bool copy_up = false;

    bool bind() const noexcept;            // "bind" or "rbind"
    bool recursive_bind() const noexcept;  // "rbind"
    bool remount() const noexcept;         // "remount": change the flags of the mount already there
};

// Parses a mount's options. Refuses what husk does not implement instead of ignoring it: "idmap", "ridmap".
Result<MountOptions> parse_mount_options(const std::vector<std::string>& options);

// Per-mount attributes (MOUNT_ATTR_*) for fsmount(2) or mount_setattr(2) without AT_RECURSIVE.
struct MountAttributes {
    std::uint64_t set = 0;
    std::uint64_t clear = 0;
};
// What flags/cleared mean for one mount. Unmentioned attributes are left alone: a bind keeps what its
// source had (safer than runc's remount, which drops unlocked nosuid/nodev/noexec), a fresh filesystem has
// the kernel defaults. The atime words form an enum (mount_setattr(2)): strictatime beats noatime beats
// relatime, as in mount(2); "atime", "norelatime", "nostrictatime" alone mean the default, relatime.
MountAttributes mount_attributes(const MountOptions& options) noexcept;

// Superblock flags that a new filesystem takes as fsconfig(2) FSCONFIG_SET_FLAG keys: "ro", "sync",
// "dirsync", "mand", "lazytime", in that order. MS_I_VERSION and MS_SILENT have no effect a container can
// ask for (the kernel manages i_version itself) and are dropped.
std::vector<std::string> superblock_flag_keys(const MountOptions& options);

// The propagation name as written in config.json ("rslave") to MS_* flags; 0 when unknown.
unsigned long parse_propagation(const std::string& name) noexcept;

// The options `husk features` lists as mountOptions (features.md), each one parse_mount_options knows.
const std::vector<std::string>& feature_mount_options();

}  // namespace husk::mnt
