// plan_limits beyond the controllers: unified keys, network and rdma (limits.cpp).
#include <catch2/catch.hpp>

#include "cgroup/limits_test_support.hpp"

using namespace husk::cgroup;
using namespace husk::cgroup::testing;
namespace spec = husk::spec;

TEST_CASE("unified keys are written verbatim after everything else", "[cgroup]") {
    spec::Resources r;
    r.pids_limit = 5;
    r.unified["memory.high"] = "1G";
    r.unified["cgroup.max.depth"] = "2";
    auto writes = plan_limits(r, {}).value();
    REQUIRE(writes.size() == 3);
    CHECK(writes[0].file == "pids.max");
    CHECK(writes[1].file == "cgroup.max.depth");
    CHECK(writes[1].controller.empty());
    CHECK(writes[1].verbatim);
    CHECK(writes[2].field == "linux.resources.unified[\"memory.high\"]");
    CHECK(writes[2].controller == "memory");
    CHECK(writes[2].value == "1G");
    CHECK(needed_controllers(writes) == std::vector<std::string>{"pids", "memory"});
}

TEST_CASE("unified keys must be plain interface file names of the cgroup", "[cgroup]") {
    for (const char* bad : {"../memory.max", "memory.max/x", ".memory.max", "memory..max", "nodot", ""}) {
        spec::Resources r;
        r.unified[bad] = "1";
        CHECK(error_of(r) == "linux.resources.unified[\"" + std::string(bad) +
                                 "\"]: not a cgroup v2 interface file name (<controller>.<file>, a plain name)");
    }
    spec::Resources r;
    r.unified["memory.bogus"] = "1";
    CHECK(error_of(r, probing({"memory.max"})) ==
          "linux.resources.unified[\"memory.bogus\"]: not an interface file of cgroup /sys/fs/cgroup/c");
}

TEST_CASE("unified never plans a write to a cgroup core file that is not a limit", "[cgroup][unified]") {
    for (const char* key : {"cgroup.procs", "cgroup.threads", "cgroup.subtree_control", "cgroup.type", "cgroup.kill",
                            "cgroup.freeze"}) {
        spec::Resources r;
        r.unified[key] = "1";
        INFO(key);
        // Refused whether or not the file exists in the cgroup.
        CHECK_THAT(error_of(r), Catch::StartsWith("linux.resources.unified[\"" + std::string(key) + "\"]: refused: "));
        CHECK_THAT(error_of(r, probing({key})), Catch::Contains("a cgroup core interface file, not a limit"));
    }
}

TEST_CASE("unified writes a controller's file only when the controller is enabled for the cgroup",
          "[cgroup][unified]") {
    spec::Resources r;
    r.unified["pids.max"] = "10";
    LimitOptions options = probing({"pids.max", "cgroup.max.depth"});
    options.controllers = {"memory"};
    CHECK(error_of(r, options) == "linux.resources.unified[\"pids.max\"]: the pids controller is not enabled for "
                                  "cgroup /sys/fs/cgroup/c (not in its cgroup.controllers)");
    options.controllers = {"memory", "pids"};
    CHECK(plan(r, options) == std::vector<std::string>{"pids.max=10"});
    // The core limits need no controller.
    r.unified = {{"cgroup.max.depth", "2"}};
    options.controllers.clear();
    CHECK(plan(r, options) == std::vector<std::string>{"cgroup.max.depth=2"});
}

TEST_CASE("network and rdma stay refused", "[cgroup]") {
    spec::Resources r;
    r.has_network = true;
    CHECK(error_of(r).starts_with("linux.resources.network: net_cls and net_prio are cgroup v1 controllers"));
    r.has_network = false;
    r.has_rdma = true;
    CHECK(error_of(r) == "linux.resources.rdma: rdma limits are not supported by this husk build");
}
