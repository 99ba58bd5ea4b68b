#include "cgroup/resources_check.hpp"

#include <unistd.h>

#include <catch2/catch.hpp>

#include "cgroup/cgroup.hpp"
#include "cgroup/hierarchy.hpp"

using namespace husk::cgroup;
namespace spec = husk::spec;

namespace {

ControllerFacts hybrid_facts() {
    ControllerFacts facts;
    facts.mount = "/sys/fs/cgroup/unified";
    facts.consulted = "/sys/fs/cgroup/unified/cgroup.controllers";
    facts.available = {"hugetlb"};
    facts.bound_to_v1 = {"cpuset", "cpu", "io", "memory", "pids"};
    return facts;
}

std::string first_error(const spec::Resources& resources, const ControllerFacts& facts) {
    auto requests = list_resource_requests(resources);
    if (!requests) return requests.error().message();
    auto checked = check_resource_requests(*requests, facts);
    return checked ? "" : checked.error().message();
}

spec::Spec spec_with(spec::Resources resources) {
    spec::Spec s;
    s.linux.emplace();
    s.linux->resources = std::move(resources);
    return s;
}

}  // namespace

TEST_CASE("empty resource objects ask for nothing", "[cgroup]") {
    spec::Resources r;
    r.memory.emplace();
    r.cpu.emplace();
    r.block_io.emplace();
    r.memory->disable_oom_killer = false;
    r.memory->use_hierarchy = true;
    r.memory->check_before_update = true;
    CHECK(list_resource_requests(r).value().empty());
    CHECK(first_error(r, hybrid_facts()).empty());
}

TEST_CASE("a memory limit on a hybrid host names the field, the controller and v1", "[cgroup]") {
    spec::Resources r;
    r.memory.emplace();
    r.memory->limit = 1 << 20;
    CHECK(first_error(r, hybrid_facts()) ==
          "linux.resources.memory.limit: the memory controller is not available in the cgroup v2 hierarchy at "
          "/sys/fs/cgroup/unified (host is hybrid: memory is bound to cgroup v1); husk does not write cgroup v1");
}

TEST_CASE("a limit whose controller is available passes the host check", "[cgroup]") {
    spec::Resources r;
    r.hugepage_limits.push_back({"2MB", 1 << 21});
    r.unified["cgroup.max.depth"] = "3";  // core files need no controller
    CHECK(first_error(r, hybrid_facts()).empty());
    r.pids_limit = 10;  // a later field whose controller is missing is still found
    CHECK(first_error(r, hybrid_facts()).starts_with("linux.resources.pids.limit: the pids controller is not available"));
}

TEST_CASE("a controller that is neither in v2 nor bound to v1 points at cgroup.controllers", "[cgroup]") {
    spec::Resources r;
    r.has_rdma = true;
    CHECK(first_error(r, hybrid_facts()) ==
          "linux.resources.rdma: the rdma controller is not available in the cgroup v2 hierarchy at "
          "/sys/fs/cgroup/unified (not listed in /sys/fs/cgroup/unified/cgroup.controllers)");
}

TEST_CASE("each resource field maps to its v2 controller", "[cgroup]") {
    spec::Resources r;
    r.cpu.emplace();
    r.cpu->cpus = "0-1";
    r.cpu->shares = 1024;
    r.pids_limit = 10;
    r.block_io.emplace();
    r.block_io->throttle_read_bps_device.push_back({8, 0, 1000});
    r.unified["memory.high"] = "1M";
    r.unified["cgroup.max.depth"] = "2";
    r.has_network = true;
    auto requests = list_resource_requests(r).value();
    REQUIRE(requests.size() == 7);
    CHECK(requests[0].field == "linux.resources.cpu.shares");
    CHECK(requests[0].controller == "cpu");
    CHECK(requests[1].field == "linux.resources.cpu.cpus");
    CHECK(requests[1].controller == "cpuset");
    CHECK(requests[2].controller == "pids");
    CHECK(requests[3].field == "linux.resources.blockIO.throttleReadBpsDevice");
    CHECK(requests[3].controller == "io");
    CHECK(requests[4].v1_only);
    CHECK(requests[5].field == "linux.resources.unified[\"cgroup.max.depth\"]");
    CHECK(requests[5].controller.empty());
    CHECK(requests[6].controller == "memory");
}

TEST_CASE("linux.resources.network is refused as cgroup v1 only", "[cgroup]") {
    spec::Resources r;
    r.has_network = true;
    CHECK(first_error(r, hybrid_facts()) ==
          "linux.resources.network: net_cls and net_prio are cgroup v1 controllers; husk does not write cgroup v1");
}

TEST_CASE("unified keys must be interface file names", "[cgroup]") {
    spec::Resources r;
    r.unified["../memory.max"] = "1";
    CHECK(first_error(r, hybrid_facts()) ==
          "linux.resources.unified[\"../memory.max\"]: not a cgroup v2 interface file name (<controller>.<file>, a "
          "plain name)");
}

TEST_CASE("unified cgroup core files that are not limits are refused before any host check", "[cgroup][unified]") {
    spec::Resources r;
    r.unified["cgroup.procs"] = "1";
    auto requests = list_resource_requests(r);
    REQUIRE_FALSE(requests);
    CHECK_THAT(requests.error().message(), Catch::StartsWith("linux.resources.unified[\"cgroup.procs\"]: refused: "));
}

TEST_CASE("prepare_cgroup refuses a memory limit the host's v2 hierarchy cannot serve, creating nothing", "[cgroup]") {
    spec::Resources r;
    r.memory.emplace();
    r.memory->limit = 1 << 20;
    std::string id = "husk-test-mem-" + std::to_string(::getpid());
    auto mount = find_v2_mount().value();
    auto facts = read_controller_facts(mount).value();
    auto plan = prepare_cgroup(spec_with(r), {}, id, Manager::cgroupfs);
    if (std::find(facts.available.begin(), facts.available.end(), "memory") != facts.available.end()) {
        REQUIRE(plan);  // a pure v2 host: the limit is planned, its controller listed
        CHECK(plan->controllers == std::vector<std::string>{"memory"});
    } else {
        REQUIRE_FALSE(plan);
        CHECK(plan.error().message().starts_with("linux.resources.memory.limit: the memory controller is not "
                                                 "available in the cgroup v2 hierarchy at " + mount + " ("));
    }
    CHECK(::access((mount + "/husk/" + id).c_str(), F_OK) != 0);  // prepare never creates anything
}

TEST_CASE("prepare_cgroup with the manager disabled refuses limits and device rules", "[cgroup]") {
    spec::Resources limits;
    limits.pids_limit = 5;
    auto refused = prepare_cgroup(spec_with(limits), {}, "c1", Manager::disabled);
    REQUIRE_FALSE(refused);
    CHECK(refused.error().message() ==
          "linux.resources.pids.limit: resource limits need a cgroup, but the cgroup manager is disabled");

    spec::Resources devices;
    devices.devices.push_back({false, "a", {}, {}, "rwm"});
    auto no_devices = prepare_cgroup(spec_with(devices), {}, "c1", Manager::disabled);
    REQUIRE_FALSE(no_devices);
    CHECK(no_devices.error().message() ==
          "linux.resources.devices: the device allow-list needs a cgroup, but the cgroup manager is disabled");

    spec::Resources empty;
    empty.memory.emplace();
    auto plan = prepare_cgroup(spec_with(empty), {}, "c1", Manager::disabled);
    REQUIRE(plan);
    CHECK(plan->disabled());
    CHECK(plan->location.path.empty());
}

TEST_CASE("prepare_cgroup plans /husk/<id> on the v2 mount and compiles device rules", "[cgroup]") {
    spec::Resources r;
    r.devices.push_back({false, "", {}, {}, "rwm"});
    r.devices.push_back({true, "c", 1, 3, "rwm"});
    auto plan = prepare_cgroup(spec_with(r), {}, "c1", Manager::cgroupfs);
    REQUIRE(plan);
    CHECK(plan->location.path == "/husk/c1");
    CHECK(plan->location.mount == find_v2_mount().value());
    CHECK(plan->has_device_rules);
    CHECK_FALSE(plan->device_program.empty());

    auto no_rules = prepare_cgroup(spec::Spec{}, {}, "c2", Manager::cgroupfs);
    REQUIRE(no_rules);
    CHECK_FALSE(no_rules->has_device_rules);
    CHECK(no_rules->location.path == "/husk/c2");
}

TEST_CASE("linux.resources.cpu asks in config-linux.md's order, cpuset's cpus and mems before idle", "[cgroup]") {
    spec::Resources r;
    r.cpu.emplace();
    r.cpu->idle = 1;
    r.cpu->mems = "0";
    r.cpu->cpus = "0-1";
    r.cpu->shares = 1024;
    auto requests = list_resource_requests(r).value();
    std::vector<std::string> fields;
    for (const ResourceRequest& request : requests) fields.push_back(request.field + "=" + request.controller);
    CHECK(fields == std::vector<std::string>{"linux.resources.cpu.shares=cpu", "linux.resources.cpu.cpus=cpuset",
                                             "linux.resources.cpu.mems=cpuset", "linux.resources.cpu.idle=cpu"});
}
