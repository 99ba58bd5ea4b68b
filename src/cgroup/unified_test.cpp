#include "cgroup/unified.hpp"

#include <catch2/catch.hpp>
#include <string>

using husk::cgroup::unified_key_controller;

TEST_CASE("unified keys name the controller whose file they are", "[cgroup][unified]") {
    CHECK(unified_key_controller("memory.high").value() == "memory");
    CHECK(unified_key_controller("hugetlb.2MB.max").value() == "hugetlb");
    CHECK(unified_key_controller("io.bfq.weight").value() == "io");
    CHECK(unified_key_controller("cpuset.cpus.partition").value() == "cpuset");
    CHECK(unified_key_controller("misc.max").value() == "misc");
}

TEST_CASE("of the cgroup core files, unified accepts only the two subtree limits", "[cgroup][unified]") {
    CHECK(unified_key_controller("cgroup.max.depth").value().empty());
    CHECK(unified_key_controller("cgroup.max.descendants").value().empty());
    for (const char* key : {"cgroup.procs", "cgroup.threads", "cgroup.subtree_control", "cgroup.type", "cgroup.kill",
                            "cgroup.freeze", "cgroup.pressure", "cgroup.events", "cgroup.controllers", "cgroup.stat",
                            "cgroup.max", "cgroup.max.depth.x", "cgroup.future_knob"}) {
        auto refused = unified_key_controller(key);
        INFO(key);
        REQUIRE_FALSE(refused);
        CHECK(refused.error().message() ==
              "linux.resources.unified[\"" + std::string(key) +
                  "\"]: refused: a cgroup core interface file, not a limit (of cgroup.*, only cgroup.max.depth and "
                  "cgroup.max.descendants may be set)");
    }
}

TEST_CASE("unified keys must be plain file names", "[cgroup][unified]") {
    for (const char* key : {"../memory.max", "memory.max/x", "/memory.max", ".memory.max", "memory..max",
                            "memory.max.", "nodot", "", "memory.max\n", "memory max", "..", "."}) {
        auto refused = unified_key_controller(key);
        INFO(key);
        REQUIRE_FALSE(refused);
        CHECK_THAT(refused.error().message(),
                   Catch::EndsWith("\"]: not a cgroup v2 interface file name (<controller>.<file>, a plain name)"));
    }
    // Control characters are shown as '?', so the message stays one printable line.
    CHECK(unified_key_controller("memory.max\n").error().message() ==
          "linux.resources.unified[\"memory.max?\"]: not a cgroup v2 interface file name (<controller>.<file>, a "
          "plain name)");
    CHECK_FALSE(unified_key_controller(std::string("memory.max\0x", 12)));
}
