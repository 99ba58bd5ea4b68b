// VM tests: the remaining linux.resources fields as the kernel reports them: hugepageLimits
// (hugetlb.<size>.max) and the unified map (written verbatim).
#include <catch2/catch.hpp>

#include "vm_support.hpp"

using namespace husk::test;
using namespace husk::test::vm;

TEST_CASE("hugepageLimits land in hugetlb.2MB.max", "[.vm][hugetlb]") {
    require_vm();
    Sandbox sb;
    Bundle b = sb.bundle();
    b.config["linux"]["resources"]["hugepageLimits"] =
        Json::array({Json::object({{"pageSize", "2MB"}, {"limit", 4 * 2 * 1024 * 1024}})});
    b.config["process"]["args"] = Json::strings({"/probe", "sleep", "60"});
    std::string id = sb.id("hugetlb");
    require_ok(sb.create(b, id));
    std::string cgroup = cgroup_dir(sb, id);
    CHECK(read_value(cgroup + "/hugetlb.2MB.max") == "8388608");
    require_ok(sb.husk({"delete", "--force", id}));
    check_nothing_left(sb);
}

TEST_CASE("the unified map is written verbatim and the kernel enforces it", "[.vm][unified]") {
    require_vm();
    Sandbox sb;
    Bundle b = sb.bundle();
    b.config["linux"]["resources"]["unified"] =
        Json::object({{"pids.max", "10"}, {"memory.high", "67108864"}, {"cpu.weight", "250"}});
    b.config["process"]["args"] = Json::strings({"/bin/sh", "-c", "/probe fork 1000; exec /probe sleep 60"});
    std::string id = sb.id("unified");
    Output created = sb.create(b, id);
    require_ok(created);
    std::string cgroup = cgroup_dir(sb, id);
    CHECK(read_value(cgroup + "/pids.max") == "10");
    CHECK(read_value(cgroup + "/memory.high") == "67108864");
    CHECK(read_value(cgroup + "/cpu.weight") == "250");
    require_ok(sb.husk({"start", id}));
    REQUIRE(wait_for_output(created, "sleeping"));
    INFO(created.current_out());
    CHECK(json_lines(created.current_out()).at(0)["forked"].num() == 8);
    CHECK(keyed_value(cgroup + "/pids.events", "max") > 0);
    kill_and_delete(sb, id);
    check_nothing_left(sb);
}
