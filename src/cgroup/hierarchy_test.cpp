#include "cgroup/hierarchy.hpp"

#include <catch2/catch.hpp>

#include <unistd.h>

#include "cgroup/cgroup.hpp"

using husk::cgroup::parse_v2_mount;
using husk::cgroup::resolve_cgroup_path;
using husk::cgroup::validate_cgroup_path;

TEST_CASE("an empty cgroupsPath puts the container under /husk/<id>", "[cgroup]") {
    CHECK(resolve_cgroup_path("", "c1").value() == "/husk/c1");
}

TEST_CASE("an absolute cgroupsPath is taken relative to the v2 root, cleaned", "[cgroup]") {
    CHECK(resolve_cgroup_path("/machine/c1", "c1").value() == "/machine/c1");
    CHECK(resolve_cgroup_path("//machine/./c1/", "c1").value() == "/machine/c1");
}

TEST_CASE("a relative cgroupsPath goes below /husk", "[cgroup]") {
    CHECK(resolve_cgroup_path("tenant/c1", "c1").value() == "/husk/tenant/c1");
    CHECK(resolve_cgroup_path("a:b", "c1").value() == "/husk/a:b");
}

TEST_CASE("the systemd form of cgroupsPath is refused with a clear message", "[cgroup]") {
    auto r = resolve_cgroup_path("system.slice:docker:abc", "c1");
    REQUIRE_FALSE(r);
    bool systemd = ::access("/run/systemd/system", F_OK) == 0;  // this host (and CI's) has none
    CHECK(r.error().message() ==
          std::string("linux.cgroupsPath \"system.slice:docker:abc\" uses the systemd form (slice:prefix:name)") +
              (systemd ? "" : ", but no systemd is running on this host") +
              "; husk manages cgroups itself (cgroupfs): give a path such as \"/mygroup/c1\"");
}

TEST_CASE("cgroupsPath with .. components is refused", "[cgroup]") {
    for (const char* path : {"/a/../b", "../escape", "a/..", "/.."}) {
        auto r = resolve_cgroup_path(path, "c1");
        REQUIRE_FALSE(r);
        CHECK(r.error().message() ==
              std::string("linux.cgroupsPath \"") + path + "\": \"..\" components are not allowed");
    }
}

TEST_CASE("cgroupsPath naming the root cgroup is refused", "[cgroup]") {
    CHECK_FALSE(resolve_cgroup_path("/", "c1"));
    CHECK_FALSE(resolve_cgroup_path("///", "c1"));
    CHECK_FALSE(resolve_cgroup_path(".", "c1"));
}

TEST_CASE("a container id that cannot be a directory name is refused", "[cgroup]") {
    CHECK_FALSE(resolve_cgroup_path("", "a/b"));
    CHECK_FALSE(resolve_cgroup_path("", ".."));
    CHECK_FALSE(resolve_cgroup_path("", ""));
}

TEST_CASE("validate_cgroup_path accepts only clean absolute paths below the root", "[cgroup]") {
    CHECK(validate_cgroup_path("/husk/c1"));
    CHECK_FALSE(validate_cgroup_path("husk/c1"));
    CHECK_FALSE(validate_cgroup_path("/"));
    CHECK_FALSE(validate_cgroup_path("/husk/../etc"));
    CHECK_FALSE(validate_cgroup_path("/husk//c1"));
}

TEST_CASE("parse_v2_mount picks the first cgroup2 line and decodes octal escapes", "[cgroup]") {
    const char* hybrid =
        "31 30 0:28 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n"
        "40 30 0:37 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n"
        "41 30 0:38 / /other rw - cgroup2 cgroup2 rw\n";
    CHECK(parse_v2_mount(hybrid).value() == "/sys/fs/cgroup/unified");
    CHECK(parse_v2_mount("1 2 0:3 / /a\\040b rw shared:4 - cgroup2 none rw\n").value() == "/a b");
    auto none = parse_v2_mount("31 30 0:28 / /sys/fs/cgroup/cpu rw - cgroup cgroup rw,cpu\n");
    REQUIRE_FALSE(none);
    CHECK(none.error().message() == "no cgroup2 mount in /proc/self/mountinfo; husk needs the cgroup v2 hierarchy");
}

TEST_CASE("find_v2_mount finds a directory that really is cgroup2", "[cgroup]") {
    auto mount = husk::cgroup::find_v2_mount();
    REQUIRE(mount);
    CHECK(husk::cgroup::open_v2_root(*mount));
}

TEST_CASE("open_v2_root refuses a directory that is not cgroup2", "[cgroup]") {
    auto r = husk::cgroup::open_v2_root("/tmp");
    REQUIRE_FALSE(r);
    CHECK(r.error().message() == "\"/tmp\" is not a cgroup2 mount; husk never writes cgroup v1");
}

TEST_CASE("flat_keyed_value reads cgroup.events style files", "[cgroup]") {
    CHECK(husk::cgroup::flat_keyed_value("populated 1\nfrozen 0\n", "frozen") == 0);
    CHECK(husk::cgroup::flat_keyed_value("populated 1\nfrozen 0\n", "populated") == 1);
    CHECK(husk::cgroup::flat_keyed_value("populated 1\n", "frozen") == -1);
}
