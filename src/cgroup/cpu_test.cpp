// The cpu controller: shares conversion, plan and read back (cpu.cpp).
#include <catch2/catch.hpp>

#include "cgroup/limits_test_support.hpp"

using namespace husk::cgroup;
using namespace husk::cgroup::testing;
namespace spec = husk::spec;

TEST_CASE("cpu shares convert to cpu.weight as runc 1.4 does, 1024 to 100", "[cgroup]") {
    CHECK(cpu_shares_to_weight(0) == 0);
    CHECK(cpu_shares_to_weight(1) == 1);
    CHECK(cpu_shares_to_weight(2) == 1);
    CHECK(cpu_shares_to_weight(3) == 2);
    CHECK(cpu_shares_to_weight(1024) == 100);
    CHECK(cpu_shares_to_weight(2000) == 170);
    CHECK(cpu_shares_to_weight(262143) == 10000);
    CHECK(cpu_shares_to_weight(262144) == 10000);
    CHECK(cpu_shares_to_weight(1u << 30) == 10000);
}

TEST_CASE("cpu fields map to cpu.weight, cpu.max, cpu.max.burst, cpu.idle and cpuset", "[cgroup]") {
    spec::Resources r;
    r.cpu.emplace();
    r.cpu->shares = 1024;
    r.cpu->quota = 50000;
    r.cpu->period = 200000;
    r.cpu->burst = 10000;
    r.cpu->idle = 1;
    r.cpu->cpus = "0-1";
    r.cpu->mems = "0";
    CHECK(plan(r) == std::vector<std::string>{"cpu.weight=100", "cpu.max=50000 200000", "cpu.max.burst=10000",
                                              "cpu.idle=1", "cpuset.cpus=0-1", "cpuset.mems=0"});
    r.cpu->idle = 0;  // leaving idle must come before cpu.weight, which the kernel refuses while idle
    CHECK(plan(r).front() == "cpu.idle=0");
}

TEST_CASE("cpu.max defaults the period at create and keeps the other half on update", "[cgroup]") {
    spec::Resources r;
    r.cpu.emplace();
    r.cpu->quota = 25000;
    CHECK(plan(r) == std::vector<std::string>{"cpu.max=25000 100000"});
    r.cpu->quota = -1;
    CHECK(plan(r) == std::vector<std::string>{"cpu.max=max 100000"});
    r.cpu->quota.reset();
    r.cpu->period = 50000;
    CHECK(plan(r) == std::vector<std::string>{"cpu.max=max 50000"});

    LimitOptions update;
    update.mode = LimitMode::update;
    update.current_cpu_quota = "30000";
    CHECK(plan(r, update) == std::vector<std::string>{"cpu.max=30000 50000"});
    r.cpu->period.reset();
    r.cpu->quota = 40000;
    CHECK(plan(r, update) == std::vector<std::string>{"cpu.max=40000"});
}

TEST_CASE("realtime cpu fields and a burst above the quota are refused", "[cgroup]") {
    spec::Resources r;
    r.cpu.emplace();
    r.cpu->realtime_runtime = 950000;
    CHECK(error_of(r) ==
          "linux.resources.cpu.realtimeRuntime: not available on cgroup v2 (no realtime group scheduling)");
    r.cpu.emplace();
    r.cpu->realtime_period = 1000000;
    CHECK(error_of(r).starts_with("linux.resources.cpu.realtimePeriod: not available on cgroup v2"));
    r.cpu.emplace();
    r.cpu->quota = 1000;
    r.cpu->burst = 2000;
    CHECK(error_of(r).starts_with("linux.resources.cpu.burst: 2000 is larger than cpu.quota 1000"));
}

TEST_CASE("cpu.max compares quota and, when written, the period", "[cgroup]") {
    CHECK(check("cpu.max", "max 100000", "max 100000\n") == Readback::match);
    CHECK(check("cpu.max", "50000 100000", "50000 100000\n") == Readback::match);
    CHECK(check("cpu.max", "50000", "50000 250000\n") == Readback::match);
    CHECK(check("cpu.max", "50000 100000", "50000 200000\n") == Readback::mismatch);
    CHECK(check("cpu.max", "max", "25000 100000\n") == Readback::mismatch);
}
