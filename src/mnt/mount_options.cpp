#include "mnt/mount_options.hpp"

#include <sys/mount.h>

#include <algorithm>
#include <string_view>

namespace husk::mnt {
namespace {

struct FlagWord {
    std::string_view name;
    bool clears;
    unsigned long flag;
};

// config.md "Linux mount options", mount(8) "FILESYSTEM-INDEPENDENT MOUNT OPTIONS". "acl" is left to the
// filesystem as data: MS_POSIXACL is the filesystem's to set (runc issue 3738).
constexpr FlagWord flag_words[] = {
    {"async", true, MS_SYNCHRONOUS},   {"atime", true, MS_NOATIME},
    {"bind", false, MS_BIND},          {"defaults", false, 0},
    {"dev", true, MS_NODEV},           {"diratime", true, MS_NODIRATIME},
    {"dirsync", false, MS_DIRSYNC},    {"exec", true, MS_NOEXEC},
    {"iversion", false, MS_I_VERSION}, {"lazytime", false, MS_LAZYTIME},
    {"loud", true, MS_SILENT},         {"mand", false, MS_MANDLOCK},
    {"noatime", false, MS_NOATIME},    {"nodev", false, MS_NODEV},
    {"nodiratime", false, MS_NODIRATIME}, {"noexec", false, MS_NOEXEC},
    {"noiversion", true, MS_I_VERSION},   {"nolazytime", true, MS_LAZYTIME},
    {"nomand", true, MS_MANDLOCK},        {"norelatime", true, MS_RELATIME},
    {"nostrictatime", true, MS_STRICTATIME}, {"nosuid", false, MS_NOSUID},
    {"nosymfollow", false, MS_NOSYMFOLLOW},  {"rbind", false, MS_BIND | MS_REC},
    {"relatime", false, MS_RELATIME},     {"remount", false, MS_REMOUNT},
    {"ro", false, MS_RDONLY},             {"rw", true, MS_RDONLY},
    {"silent", false, MS_SILENT},         {"strictatime", false, MS_STRICTATIME},
    {"suid", true, MS_NOSUID},            {"symfollow", true, MS_NOSYMFOLLOW},
    {"sync", false, MS_SYNCHRONOUS},
};

struct PropagationWord {
    std::string_view name;
    unsigned long flags;
};

constexpr PropagationWord propagation_words[] = {
    {"private", MS_PRIVATE},   {"rprivate", MS_PRIVATE | MS_REC},       {"slave", MS_SLAVE},
    {"rslave", MS_SLAVE | MS_REC}, {"shared", MS_SHARED},               {"rshared", MS_SHARED | MS_REC},
    {"unbindable", MS_UNBINDABLE}, {"runbindable", MS_UNBINDABLE | MS_REC},
};

struct RecursiveWord {
    std::string_view name;
    bool clears;
    std::uint64_t attribute;
};

// The AT_RECURSIVE variants (config.md footnote 3). Atime words are handled apart: they are an enum.
constexpr RecursiveWord recursive_words[] = {
    {"rro", false, MOUNT_ATTR_RDONLY},       {"rrw", true, MOUNT_ATTR_RDONLY},
    {"rnosuid", false, MOUNT_ATTR_NOSUID},   {"rsuid", true, MOUNT_ATTR_NOSUID},
    {"rnodev", false, MOUNT_ATTR_NODEV},     {"rdev", true, MOUNT_ATTR_NODEV},
    {"rnoexec", false, MOUNT_ATTR_NOEXEC},   {"rexec", true, MOUNT_ATTR_NOEXEC},
    {"rnodiratime", false, MOUNT_ATTR_NODIRATIME}, {"rdiratime", true, MOUNT_ATTR_NODIRATIME},
    {"rnosymfollow", false, MOUNT_ATTR_NOSYMFOLLOW}, {"rsymfollow", true, MOUNT_ATTR_NOSYMFOLLOW},
};

struct RecursiveAtimeWord {
    std::string_view name;
    std::uint64_t mode;
};

// mount_setattr(2): "cannot simply specify the access-time setting in attr_set, but must also include
// MOUNT_ATTR__ATIME in the attr_clr field". Clearing a mode means going back to the default, relatime.
constexpr RecursiveAtimeWord recursive_atime_words[] = {
    {"rnoatime", MOUNT_ATTR_NOATIME},   {"ratime", MOUNT_ATTR_RELATIME},
    {"rrelatime", MOUNT_ATTR_RELATIME}, {"rnorelatime", MOUNT_ATTR_RELATIME},
    {"rstrictatime", MOUNT_ATTR_STRICTATIME}, {"rnostrictatime", MOUNT_ATTR_RELATIME},
};

}  // namespace

bool MountOptions::bind() const noexcept { return (flags & MS_BIND) != 0; }
bool MountOptions::recursive_bind() const noexcept { return (flags & (MS_BIND | MS_REC)) == (MS_BIND | MS_REC); }
bool MountOptions::remount() const noexcept { return (flags & MS_REMOUNT) != 0; }

unsigned long parse_propagation(const std::string& name) noexcept {
    for (const auto& word : propagation_words)
        if (word.name == name) return word.flags;
    return 0;
}

Result<MountOptions> parse_mount_options(const std::vector<std::string>& options) {
    MountOptions parsed;
    for (std::size_t i = 0; i < options.size(); ++i) {
        const std::string& option = options[i];
        if (option == "tmpcopyup") {
            parsed.copy_up = true;
            continue;
        }
        if (option == "idmap" || option == "ridmap")
            return fail_msg("option \"" + option + "\": idmapped mounts are not implemented");
        if (option.empty()) return fail_msg("option " + std::to_string(i) + " is empty");

        bool known = false;
        for (const auto& word : flag_words) {
            if (word.name != option) continue;
            known = true;
            if (word.clears) {
                parsed.flags &= ~word.flag;
                parsed.cleared |= word.flag;
            } else {
                parsed.flags |= word.flag;
                parsed.cleared &= ~word.flag;
            }
            break;
        }
        if (known) continue;
        if (unsigned long propagation = parse_propagation(option)) {
            parsed.propagation.push_back(propagation);
            continue;
        }
        for (const auto& word : recursive_words) {
            if (word.name != option) continue;
            known = true;
            if (word.clears) {
                parsed.recursive_clear |= word.attribute;
                parsed.recursive_set &= ~word.attribute;
            } else {
                parsed.recursive_set |= word.attribute;
                parsed.recursive_clear &= ~word.attribute;
            }
            break;
        }
        if (known) continue;
        for (const auto& word : recursive_atime_words) {
            if (word.name != option) continue;
            known = true;
            parsed.recursive_clear |= MOUNT_ATTR__ATIME;
            parsed.recursive_set = (parsed.recursive_set & ~std::uint64_t{MOUNT_ATTR__ATIME}) | word.mode;
            break;
        }
        if (known) continue;
        parsed.data.push_back(option);
    }
    return parsed;
}

MountAttributes mount_attributes(const MountOptions& options) noexcept {
    struct Pair {
        unsigned long flag;
        std::uint64_t attribute;
    };
    constexpr Pair pairs[] = {
        {MS_RDONLY, MOUNT_ATTR_RDONLY},   {MS_NOSUID, MOUNT_ATTR_NOSUID},
        {MS_NODEV, MOUNT_ATTR_NODEV},     {MS_NOEXEC, MOUNT_ATTR_NOEXEC},
        {MS_NODIRATIME, MOUNT_ATTR_NODIRATIME}, {MS_NOSYMFOLLOW, MOUNT_ATTR_NOSYMFOLLOW},
    };
    MountAttributes attributes;
    for (const auto& pair : pairs) {
        if (options.flags & pair.flag) attributes.set |= pair.attribute;
        if (options.cleared & pair.flag) attributes.clear |= pair.attribute;
    }
    constexpr unsigned long atime_flags = MS_NOATIME | MS_RELATIME | MS_STRICTATIME;
    if ((options.flags | options.cleared) & atime_flags) {
        attributes.clear |= MOUNT_ATTR__ATIME;
        if (options.flags & MS_STRICTATIME)
            attributes.set |= MOUNT_ATTR_STRICTATIME;
        else if (options.flags & MS_NOATIME)
            attributes.set |= MOUNT_ATTR_NOATIME;
        else
            attributes.set |= MOUNT_ATTR_RELATIME;
    }
    return attributes;
}

// Built from the tables parse_mount_options reads, so the features document lists every word husk knows and
// nothing else (features.md: "mountOptions: the list of the recognized mount options").
const std::vector<std::string>& feature_mount_options() {
    static const std::vector<std::string> options = [] {
        std::vector<std::string> all;
        for (const auto& word : flag_words) all.emplace_back(word.name);
        for (const auto& word : propagation_words) all.emplace_back(word.name);
        for (const auto& word : recursive_words) all.emplace_back(word.name);
        for (const auto& word : recursive_atime_words) all.emplace_back(word.name);
        all.emplace_back("tmpcopyup");
        std::sort(all.begin(), all.end());
        return all;
    }();
    return options;
}

std::vector<std::string> superblock_flag_keys(const MountOptions& options) {
    std::vector<std::string> keys;
    if (options.flags & MS_RDONLY) keys.emplace_back("ro");
    if (options.flags & MS_SYNCHRONOUS) keys.emplace_back("sync");
    if (options.flags & MS_DIRSYNC) keys.emplace_back("dirsync");
    if (options.flags & MS_MANDLOCK) keys.emplace_back("mand");
    if (options.flags & MS_LAZYTIME) keys.emplace_back("lazytime");
    return keys;
}

}  // namespace husk::mnt
