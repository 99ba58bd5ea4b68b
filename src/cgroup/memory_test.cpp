// The memory controller: plan and read back (memory.cpp).
#include <catch2/catch.hpp>

#include "cgroup/limits_test_support.hpp"
#include "cgroup/resources_check.hpp"

using namespace husk::cgroup;
using namespace husk::cgroup::testing;
namespace spec = husk::spec;

namespace {

spec::Resources with_memory(std::optional<std::int64_t> limit, std::optional<std::int64_t> swap = {}) {
    spec::Resources r;
    r.memory.emplace();
    r.memory->limit = limit;
    r.memory->swap = swap;
    return r;
}

}  // namespace

TEST_CASE("a memory limit writes memory.max, no swap and memory.oom.group", "[cgroup]") {
    CHECK(plan(with_memory(33554432)) ==
          std::vector<std::string>{"memory.max=33554432", "memory.swap.max=0", "memory.oom.group=1"});
}

TEST_CASE("run.husk.oom-group false leaves memory.oom.group alone", "[cgroup]") {
    LimitOptions options;
    options.oom_group = false;
    CHECK(plan(with_memory(1 << 20), options) == std::vector<std::string>{"memory.max=1048576", "memory.swap.max=0"});
}

TEST_CASE("memory limit -1 means max for memory and swap, without oom.group", "[cgroup]") {
    CHECK(plan(with_memory(-1)) == std::vector<std::string>{"memory.max=max", "memory.swap.max=max"});
}

TEST_CASE("swap is memory+swap: the v2 value is swap minus limit", "[cgroup]") {
    CHECK(plan(with_memory(1000, 1500)) ==
          std::vector<std::string>{"memory.max=1000", "memory.swap.max=500", "memory.oom.group=1"});
    CHECK(plan(with_memory(1000, 1000))[1] == "memory.swap.max=0");
    CHECK(plan(with_memory(1000, -1))[1] == "memory.swap.max=max");
    CHECK(plan(with_memory(-1, 4096)) == std::vector<std::string>{"memory.max=max", "memory.swap.max=4096"});
    CHECK(plan(with_memory({}, -1)) == std::vector<std::string>{"memory.swap.max=max"});
}

TEST_CASE("swap below the limit, swap without a limit and odd negatives are errors", "[cgroup]") {
    CHECK(error_of(with_memory(2000, 1000)) ==
          "linux.resources.memory.swap: 1000 is below memory.limit 2000 (swap counts memory+swap, so it must be at "
          "least the limit)");
    CHECK(error_of(with_memory({}, 1000)) ==
          "linux.resources.memory.swap: a swap limit needs memory.limit as well (swap counts memory+swap)");
    CHECK(error_of(with_memory(-2)) ==
          "linux.resources.memory.limit: -2 is neither -1 (no limit) nor a number of bytes");
    CHECK(error_of(with_memory(100, -5)).starts_with("linux.resources.memory.swap: -5 is neither"));
}

TEST_CASE("without swap accounting an implied swap.max is skipped and an explicit one refused", "[cgroup]") {
    LimitOptions options = probing({"memory.max", "memory.oom.group"});
    CHECK(plan(with_memory(4096), options) == std::vector<std::string>{"memory.max=4096", "memory.oom.group=1"});
    CHECK(error_of(with_memory(4096, 8192), options) ==
          "linux.resources.memory.swap: memory.swap.max does not exist in /sys/fs/cgroup/c (no swap accounting: "
          "kernel built without it or booted with swapaccount=0)");
}

TEST_CASE("on update a swap without a limit is taken against the current memory.max", "[cgroup]") {
    LimitOptions options;
    options.mode = LimitMode::update;
    options.current_memory_limit = 1000;
    CHECK(plan(with_memory({}, 3000), options) == std::vector<std::string>{"memory.swap.max=2000"});
    options.current_memory_limit = -1;
    CHECK(plan(with_memory({}, 3000), options) == std::vector<std::string>{"memory.swap.max=3000"});
}

TEST_CASE("memory reservation writes memory.low and zero values mean unset", "[cgroup]") {
    spec::Resources r = with_memory(0, 0);
    r.memory->reservation = 1 << 20;
    CHECK(plan(r) == std::vector<std::string>{"memory.low=1048576"});
    r.memory->reservation = -1;
    CHECK(plan(r) == std::vector<std::string>{"memory.low=max"});
}

TEST_CASE("kernel memory limits of 0 are unset, as Docker sends them with every update", "[cgroup]") {
    spec::Resources r;
    r.memory.emplace();
    r.memory->kernel = 0;
    r.memory->kernel_tcp = 0;
    CHECK(plan(r).empty());
    CHECK(husk::cgroup::list_resource_requests(r).value().empty());
}

TEST_CASE("memory fields cgroup v2 cannot honour are refused by name", "[cgroup]") {
    spec::Resources r;
    r.memory.emplace();
    r.memory->kernel = 1 << 20;
    CHECK(error_of(r).starts_with("linux.resources.memory.kernel: not available on cgroup v2"));
    r.memory.emplace();
    r.memory->kernel_tcp = 1 << 20;
    CHECK(error_of(r).starts_with("linux.resources.memory.kernelTCP: not available on cgroup v2"));
    r.memory.emplace();
    r.memory->swappiness = 0;
    CHECK(error_of(r) ==
          "linux.resources.memory.swappiness: not available on cgroup v2 (there is no per-cgroup swappiness)");
    r.memory.emplace();
    r.memory->disable_oom_killer = true;
    CHECK(error_of(r) == "linux.resources.memory.disableOOMKiller: cgroup v2 has no switch to disable the OOM killer");
    r.memory.emplace();
    r.memory->use_hierarchy = false;
    CHECK(error_of(r).starts_with("linux.resources.memory.useHierarchy: cgroup v2 is always hierarchical"));
    r.memory.emplace();
    r.memory->disable_oom_killer = false;
    r.memory->use_hierarchy = true;
    r.memory->check_before_update = true;
    CHECK(plan(r).empty());
}

TEST_CASE("memory values read back rounded down to whole pages", "[cgroup]") {
    CHECK(check("memory.max", "33554433", "33554432\n") == Readback::match);
    CHECK(check("memory.max", "33554432", "33550336\n") == Readback::mismatch);
    CHECK(check("memory.max", "max", "max\n") == Readback::match);
    CHECK(check("memory.max", "max", "4096\n") == Readback::mismatch);
    CHECK(check("memory.swap.max", "0", "0\n") == Readback::match);
    CHECK(check("memory.low", "1G", "1073741824\n") == Readback::match);
    CHECK(check("memory.high", "9223372036854775807", "max\n") == Readback::match);
    CHECK(check("memory.high", "0x10", "16\n") == Readback::unknown);
}
