#include "mnt/mount_options.hpp"

#include <sys/mount.h>

#include <catch2/catch.hpp>
#include <algorithm>
#include <string>
#include <vector>

using husk::mnt::MountOptions;
using husk::mnt::parse_mount_options;

namespace {

MountOptions parse(const std::vector<std::string>& options) {
    auto parsed = parse_mount_options(options);
    REQUIRE(parsed);
    return *parsed;
}

struct FlagCase {
    const char* option;
    unsigned long flag;
    bool clears;
};

// config.md "Linux mount options" and mount(8): every word with its MS_* flag.
const FlagCase flag_cases[] = {
    {"async", MS_SYNCHRONOUS, true},     {"atime", MS_NOATIME, true},         {"bind", MS_BIND, false},
    {"dev", MS_NODEV, true},             {"diratime", MS_NODIRATIME, true},   {"dirsync", MS_DIRSYNC, false},
    {"exec", MS_NOEXEC, true},           {"iversion", MS_I_VERSION, false},   {"lazytime", MS_LAZYTIME, false},
    {"loud", MS_SILENT, true},           {"mand", MS_MANDLOCK, false},        {"noatime", MS_NOATIME, false},
    {"nodev", MS_NODEV, false},          {"nodiratime", MS_NODIRATIME, false}, {"noexec", MS_NOEXEC, false},
    {"noiversion", MS_I_VERSION, true},  {"nolazytime", MS_LAZYTIME, true},   {"nomand", MS_MANDLOCK, true},
    {"norelatime", MS_RELATIME, true},   {"nostrictatime", MS_STRICTATIME, true}, {"nosuid", MS_NOSUID, false},
    {"nosymfollow", MS_NOSYMFOLLOW, false}, {"rbind", MS_BIND | MS_REC, false}, {"relatime", MS_RELATIME, false},
    {"remount", MS_REMOUNT, false},      {"ro", MS_RDONLY, false},            {"rw", MS_RDONLY, true},
    {"silent", MS_SILENT, false},        {"strictatime", MS_STRICTATIME, false}, {"suid", MS_NOSUID, true},
    {"symfollow", MS_NOSYMFOLLOW, true}, {"sync", MS_SYNCHRONOUS, false},
};

}  // namespace

TEST_CASE("parse_mount_options maps every mount(8) flag word to its MS_ flag", "[mnt]") {
    for (const auto& c : flag_cases) {
        INFO(c.option);
        MountOptions parsed = parse({c.option});
        if (c.clears) {
            CHECK(parsed.flags == 0);
            CHECK(parsed.cleared == c.flag);
        } else {
            CHECK(parsed.flags == c.flag);
            CHECK(parsed.cleared == 0);
        }
        CHECK(parsed.data.empty());
        CHECK(parsed.propagation.empty());
    }
}

TEST_CASE("parse_mount_options lets the last of two opposite words win", "[mnt]") {
    MountOptions ro_then_rw = parse({"ro", "rw"});
    CHECK((ro_then_rw.flags & MS_RDONLY) == 0);
    CHECK((ro_then_rw.cleared & MS_RDONLY) != 0);
    MountOptions rw_then_ro = parse({"rw", "ro"});
    CHECK((rw_then_ro.flags & MS_RDONLY) != 0);
    CHECK((rw_then_ro.cleared & MS_RDONLY) == 0);
    MountOptions suid = parse({"nosuid", "suid", "nosuid"});
    CHECK(suid.flags == MS_NOSUID);
}

TEST_CASE("parse_mount_options treats defaults as no flag at all", "[mnt]") {
    MountOptions parsed = parse({"defaults"});
    CHECK(parsed.flags == 0);
    CHECK(parsed.cleared == 0);
    CHECK(parsed.data.empty());
}

TEST_CASE("parse_mount_options tells bind, rbind and remount apart", "[mnt]") {
    CHECK(parse({"bind"}).bind());
    CHECK_FALSE(parse({"bind"}).recursive_bind());
    CHECK(parse({"rbind"}).bind());
    CHECK(parse({"rbind"}).recursive_bind());
    CHECK_FALSE(parse({"nosuid"}).bind());
    CHECK(parse({"remount", "ro"}).remount());
    CHECK_FALSE(parse({"ro"}).remount());
}

TEST_CASE("parse_mount_options keeps propagation words in their order", "[mnt]") {
    MountOptions parsed = parse({"rbind", "rprivate", "shared", "slave", "rslave", "private", "rshared",
                                 "unbindable", "runbindable"});
    CHECK(parsed.propagation == std::vector<unsigned long>{MS_PRIVATE | MS_REC, MS_SHARED, MS_SLAVE,
                                                           MS_SLAVE | MS_REC, MS_PRIVATE, MS_SHARED | MS_REC,
                                                           MS_UNBINDABLE, MS_UNBINDABLE | MS_REC});
    CHECK(parsed.flags == (MS_BIND | MS_REC));
}

TEST_CASE("parse_propagation knows the eight rootfsPropagation values and nothing else", "[mnt]") {
    using husk::mnt::parse_propagation;
    CHECK(parse_propagation("rslave") == (MS_SLAVE | MS_REC));
    CHECK(parse_propagation("private") == MS_PRIVATE);
    CHECK(parse_propagation("runbindable") == (MS_UNBINDABLE | MS_REC));
    CHECK(parse_propagation("") == 0);
    CHECK(parse_propagation("RSLAVE") == 0);
    CHECK(parse_propagation("bind") == 0);
}

TEST_CASE("parse_mount_options maps the recursive words to mount_setattr attributes", "[mnt]") {
    struct Case {
        const char* option;
        std::uint64_t set;
        std::uint64_t clear;
    };
    const Case cases[] = {
        {"rro", MOUNT_ATTR_RDONLY, 0},           {"rrw", 0, MOUNT_ATTR_RDONLY},
        {"rnosuid", MOUNT_ATTR_NOSUID, 0},       {"rsuid", 0, MOUNT_ATTR_NOSUID},
        {"rnodev", MOUNT_ATTR_NODEV, 0},         {"rdev", 0, MOUNT_ATTR_NODEV},
        {"rnoexec", MOUNT_ATTR_NOEXEC, 0},       {"rexec", 0, MOUNT_ATTR_NOEXEC},
        {"rnodiratime", MOUNT_ATTR_NODIRATIME, 0}, {"rdiratime", 0, MOUNT_ATTR_NODIRATIME},
        {"rnosymfollow", MOUNT_ATTR_NOSYMFOLLOW, 0}, {"rsymfollow", 0, MOUNT_ATTR_NOSYMFOLLOW},
        // Atime is an enum: the whole MOUNT_ATTR__ATIME field is cleared and one mode set.
        {"rnoatime", MOUNT_ATTR_NOATIME, MOUNT_ATTR__ATIME},
        {"rstrictatime", MOUNT_ATTR_STRICTATIME, MOUNT_ATTR__ATIME},
        {"rrelatime", MOUNT_ATTR_RELATIME, MOUNT_ATTR__ATIME},
        {"ratime", MOUNT_ATTR_RELATIME, MOUNT_ATTR__ATIME},
        {"rnorelatime", MOUNT_ATTR_RELATIME, MOUNT_ATTR__ATIME},
        {"rnostrictatime", MOUNT_ATTR_RELATIME, MOUNT_ATTR__ATIME},
    };
    for (const auto& c : cases) {
        INFO(c.option);
        MountOptions parsed = parse({c.option});
        CHECK(parsed.recursive_set == c.set);
        CHECK(parsed.recursive_clear == c.clear);
        CHECK(parsed.flags == 0);
        CHECK(parsed.data.empty());
    }
    MountOptions combined = parse({"rro", "rnoatime", "rrw", "rstrictatime"});
    CHECK(combined.recursive_set == MOUNT_ATTR_STRICTATIME);
    CHECK(combined.recursive_clear == (MOUNT_ATTR_RDONLY | MOUNT_ATTR__ATIME));
}

TEST_CASE("tmpcopyup is a known word, not filesystem data", "[mnt]") {
    MountOptions parsed = parse({"nosuid", "tmpcopyup", "mode=755"});
    CHECK(parsed.copy_up);
    CHECK(parsed.data == std::vector<std::string>{"mode=755"});
    CHECK_FALSE(parse({"nosuid"}).copy_up);
}

TEST_CASE("parse_mount_options passes unknown words through as filesystem data, in order", "[mnt]") {
    MountOptions parsed = parse({"nosuid", "mode=755", "strictatime", "size=65536k", "newinstance", "acl", "gid=5"});
    CHECK(parsed.data == std::vector<std::string>{"mode=755", "size=65536k", "newinstance", "acl", "gid=5"});
    CHECK(parsed.flags == (MS_NOSUID | MS_STRICTATIME));
}

TEST_CASE("parse_mount_options refuses what husk does not implement", "[mnt]") {
    for (const char* idmap : {"idmap", "ridmap"}) {
        auto parsed = parse_mount_options({"rbind", idmap});
        REQUIRE_FALSE(parsed);
        CHECK(std::string(parsed.error().what).find("idmapped mounts are not implemented") != std::string::npos);
    }
    CHECK_FALSE(parse_mount_options({"ro", ""}));
}

TEST_CASE("mount_attributes translates per-mount flags and leaves unmentioned ones alone", "[mnt]") {
    using husk::mnt::mount_attributes;
    auto none = mount_attributes(parse({"bind", "mode=755"}));
    CHECK(none.set == 0);
    CHECK(none.clear == 0);

    auto locked_down = mount_attributes(parse({"ro", "nosuid", "nodev", "noexec", "nodiratime", "nosymfollow"}));
    CHECK(locked_down.set == (MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC |
                              MOUNT_ATTR_NODIRATIME | MOUNT_ATTR_NOSYMFOLLOW));
    CHECK(locked_down.clear == 0);

    auto opened = mount_attributes(parse({"rw", "suid", "dev", "exec", "diratime", "symfollow"}));
    CHECK(opened.set == 0);
    CHECK(opened.clear == (MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC |
                           MOUNT_ATTR_NODIRATIME | MOUNT_ATTR_NOSYMFOLLOW));
}

TEST_CASE("mount_attributes resolves the atime words as mount(2) does", "[mnt]") {
    using husk::mnt::mount_attributes;
    CHECK(mount_attributes(parse({"noatime"})).set == MOUNT_ATTR_NOATIME);
    CHECK(mount_attributes(parse({"noatime"})).clear == MOUNT_ATTR__ATIME);
    CHECK(mount_attributes(parse({"relatime"})).set == MOUNT_ATTR_RELATIME);
    CHECK(mount_attributes(parse({"relatime"})).clear == MOUNT_ATTR__ATIME);
    // strictatime wins over noatime, whatever the order.
    CHECK(mount_attributes(parse({"strictatime", "noatime"})).set == MOUNT_ATTR_STRICTATIME);
    CHECK(mount_attributes(parse({"noatime", "strictatime"})).set == MOUNT_ATTR_STRICTATIME);
    // "atime" after "noatime" undoes it: back to the default.
    auto undone = mount_attributes(parse({"noatime", "atime"}));
    CHECK(undone.set == MOUNT_ATTR_RELATIME);
    CHECK(undone.clear == MOUNT_ATTR__ATIME);
    CHECK(mount_attributes(parse({"nostrictatime"})).clear == MOUNT_ATTR__ATIME);
    CHECK(mount_attributes(parse({"nosuid"})).clear == 0);
}

TEST_CASE("superblock_flag_keys names the flags fsconfig takes for a new filesystem", "[mnt]") {
    using husk::mnt::superblock_flag_keys;
    CHECK(superblock_flag_keys(parse({"nosuid", "mode=755"})).empty());
    CHECK(superblock_flag_keys(parse({"lazytime", "sync", "ro", "dirsync", "mand", "iversion", "silent"})) ==
          std::vector<std::string>{"ro", "sync", "dirsync", "mand", "lazytime"});
    CHECK(superblock_flag_keys(parse({"ro", "rw"})).empty());
}

TEST_CASE("the features document lists the mount options husk parses and tmpfs or data words are not among them",
          "[mnt]") {
    const auto& listed = husk::mnt::feature_mount_options();
    CHECK(std::is_sorted(listed.begin(), listed.end()));
    for (const char* word : {"lazytime", "nosymfollow", "rnosymfollow", "iversion", "silent", "ro", "rro", "rprivate",
                             "tmpcopyup"})
        CHECK(std::find(listed.begin(), listed.end(), word) != listed.end());
    for (const char* word : {"mode=755", "size=64k", "idmap"})
        CHECK(std::find(listed.begin(), listed.end(), word) == listed.end());
}

TEST_CASE("every mount option the features document lists is one husk parses", "[mnt]") {
    for (const auto& option : husk::mnt::feature_mount_options()) {
        INFO(option);
        auto parsed = husk::mnt::parse_mount_options({option});
        REQUIRE(parsed);
        CHECK(parsed->data.empty());  // a known word, not passed through as filesystem data
    }
}
