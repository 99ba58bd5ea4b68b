#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <string>

#include "base/fs.hpp"
#include "spec/parse.hpp"

using husk::spec::parse_resources_config;

TEST_CASE("parse_config fills linux.resources", "[spec]") {
    auto spec = husk::spec::parse_config(R"({"linux": {"resources": {
      "devices": [{"allow": false, "access": "rwm"}, {"allow": true, "type": "c", "major": 136, "access": "rw"},
                  {"allow": true, "type": "b", "major": 8, "minor": 0}],
      "memory": {"limit": 536870912, "reservation": 1, "swap": -1, "kernel": -1, "kernelTCP": 2, "swappiness": 0,
                 "disableOOMKiller": false, "useHierarchy": true, "checkBeforeUpdate": true},
      "cpu": {"shares": 1024, "quota": -1, "burst": 500, "period": 100000, "realtimeRuntime": 950000,
              "realtimePeriod": 1000000, "cpus": "2-3", "mems": "0-7", "idle": 1},
      "pids": {"limit": 32771},
      "blockIO": {"weight": 10, "leafWeight": 20,
                  "weightDevice": [{"major": 8, "minor": 0, "weight": 500, "leafWeight": 300}, {"major": 8, "minor": 16}],
                  "throttleReadBpsDevice": [{"major": 8, "minor": 0, "rate": 600}],
                  "throttleWriteBpsDevice": [{"major": 8, "minor": 1, "rate": 601}],
                  "throttleReadIOPSDevice": [{"major": 8, "minor": 2, "rate": 602}],
                  "throttleWriteIOPSDevice": [{"major": 8, "minor": 16, "rate": 300}]},
      "hugepageLimits": [{"pageSize": "2MB", "limit": 9223372036854772000}],
      "unified": {"memory.high": "1G", "io.weight": "100"}
    }}})");
    REQUIRE(spec);
    const auto& r = spec->linux->resources.value();
    REQUIRE(r.devices.size() == 3);
    CHECK_FALSE(r.devices[0].allow);
    CHECK(r.devices[0].type.empty());
    CHECK_FALSE(r.devices[0].major);
    CHECK_FALSE(r.devices[0].minor);
    CHECK(r.devices[1].allow);
    CHECK(r.devices[1].major == 136);
    CHECK_FALSE(r.devices[1].minor);
    CHECK(r.devices[1].access == "rw");
    CHECK(r.devices[2].minor == 0);
    CHECK(r.devices[2].access.empty());
    const auto& memory = r.memory.value();
    CHECK(memory.limit == 536870912);
    CHECK(memory.reservation == 1);
    CHECK(memory.swap == -1);
    CHECK(memory.kernel == -1);
    CHECK(memory.kernel_tcp == 2);
    CHECK(memory.swappiness == 0u);
    CHECK(memory.disable_oom_killer == false);
    CHECK(memory.use_hierarchy == true);
    CHECK(memory.check_before_update == true);
    const auto& cpu = r.cpu.value();
    CHECK(cpu.shares == 1024u);
    CHECK(cpu.quota == -1);
    CHECK(cpu.burst == 500);
    CHECK(cpu.period == 100000u);
    CHECK(cpu.realtime_runtime == 950000);
    CHECK(cpu.realtime_period == 1000000u);
    CHECK(cpu.cpus == "2-3");
    CHECK(cpu.mems == "0-7");
    CHECK(cpu.idle == 1);
    CHECK(r.pids_limit == 32771);
    const auto& io = r.block_io.value();
    CHECK(io.weight == 10);
    CHECK(io.leaf_weight == 20);
    REQUIRE(io.weight_device.size() == 2);
    CHECK(io.weight_device[0].weight == 500);
    CHECK(io.weight_device[0].leaf_weight == 300);
    CHECK_FALSE(io.weight_device[1].weight);
    CHECK(io.throttle_read_bps_device[0].rate == 600u);
    CHECK(io.throttle_write_bps_device[0].rate == 601u);
    CHECK(io.throttle_read_iops_device[0].rate == 602u);
    CHECK(io.throttle_write_iops_device[0].minor == 16);
    REQUIRE(r.hugepage_limits.size() == 1);
    CHECK(r.hugepage_limits[0].page_size == "2MB");
    CHECK(r.hugepage_limits[0].limit == 9223372036854772000u);
    CHECK(r.unified.at("memory.high") == "1G");
    CHECK_FALSE(r.has_network);
    CHECK_FALSE(r.has_rdma);
}

TEST_CASE("parse_config records resources.network and resources.rdma when they carry values", "[spec]") {
    auto r = parse_resources_config(R"({"network": {"classID": 1048577}, "rdma": {"mlx5_1": {"hcaHandles": 3}}})");
    REQUIRE(r);
    CHECK(r->has_network);
    CHECK(r->has_rdma);
    auto empty = parse_resources_config(R"({"network": {}, "rdma": {}})");
    REQUIRE(empty);
    CHECK_FALSE(empty->has_network);
    CHECK_FALSE(empty->has_rdma);
}

TEST_CASE("parse_resources_config reads an update --resources document with paths relative to it", "[spec]") {
    auto r = parse_resources_config(R"({"memory": {"limit": 100663296, "swap": 201326592}, "cpu": {"shares": 512}})");
    REQUIRE(r);
    CHECK(r->memory->limit == 100663296);
    CHECK(r->cpu->shares == 512u);
    CHECK(parse_resources_config(R"({"memory": {"swappiness": -1}})").error().message() ==
          "memory.swappiness: expected an unsigned integer");
    CHECK(parse_resources_config(R"({"blockIO": {"weight": 70000}})").error().message() ==
          "blockIO.weight: 70000 is out of range for a 16-bit unsigned integer");
    CHECK(parse_resources_config(R"({"cpu": {"burst": 9223372036854775808}})").error().message() ==
          "cpu.burst: 9223372036854775808 is out of range for a 64-bit integer");
    CHECK(parse_resources_config(R"({"hugepageLimits": [{"limit": 1}]})").error().message() ==
          "hugepageLimits[0].pageSize: required property is missing");
}

TEST_CASE("parse_process_config reads an exec process.json", "[spec]") {
    std::vector<std::string> unsupported;
    auto process = husk::spec::parse_process_config(
        R"({"user": {"uid": 65534, "gid": 65534}, "args": ["id"], "env": ["FOO=bar"], "cwd": "/tmp",
            "terminal": false, "scheduler": {"policy": "SCHED_OTHER"}})",
        unsupported);
    REQUIRE(process);
    CHECK(process->user.uid == 65534);
    CHECK(process->args == std::vector<std::string>{"id"});
    CHECK(process->cwd == "/tmp");
    CHECK(unsupported == std::vector<std::string>{"scheduler"});
    CHECK(husk::spec::parse_process_config(R"({"args": "id"})", unsupported).error().message() ==
          "args: expected an array");
}
