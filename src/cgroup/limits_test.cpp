#include "cgroup/limits.hpp"

#include <catch2/catch.hpp>

using namespace husk::cgroup;
namespace spec = husk::spec;

namespace {

// "file=value" per write, for compact expectations.
std::vector<std::string> plan(const spec::Resources& r, const LimitOptions& options = {}) {
    auto writes = plan_limits(r, options);
    if (!writes) FAIL(writes.error().message());
    std::vector<std::string> out;
    for (const LimitWrite& w : *writes) out.push_back(w.file + "=" + w.value);
    return out;
}

std::string error_of(const spec::Resources& r, const LimitOptions& options = {}) {
    auto writes = plan_limits(r, options);
    return writes ? "" : writes.error().message();
}

spec::Resources with_memory(std::optional<std::int64_t> limit, std::optional<std::int64_t> swap = {}) {
    spec::Resources r;
    r.memory.emplace();
    r.memory->limit = limit;
    r.memory->swap = swap;
    return r;
}

// A cgroup whose files are exactly `files`.
LimitOptions probing(std::vector<std::string> files) {
    LimitOptions options;
    options.where = "/sys/fs/cgroup/c";
    options.has_file = [files](std::string_view name) {
        return std::find(files.begin(), files.end(), name) != files.end();
    };
    return options;
}

}  // namespace

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

TEST_CASE("blockIO weights convert linearly to io.weight", "[cgroup]") {
    CHECK(blkio_weight_to_io_weight(10) == 1);
    CHECK(blkio_weight_to_io_weight(500) == 4950);
    CHECK(blkio_weight_to_io_weight(1000) == 10000);
}

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

TEST_CASE("pids.limit follows runtime-spec 1.3.0 for a 1.3 config: 0 is a limit, -1 is max", "[cgroup][pids]") {
    spec::Resources r;
    r.pids_limit = 32;
    CHECK(plan(r) == std::vector<std::string>{"pids.max=32"});
    r.pids_limit = 0;
    CHECK(plan(r) == std::vector<std::string>{"pids.max=0"});
    r.pids_limit = -1;
    CHECK(plan(r) == std::vector<std::string>{"pids.max=max"});
    // 1.3 defines -1 only; any other negative value is refused rather than guessed.
    r.pids_limit = -2;
    CHECK(error_of(r) == "linux.resources.pids.limit: -2 is neither -1 (no limit) nor a number of tasks");
}

TEST_CASE("pids.limit of a config before runtime-spec 1.3 reads 0 and below as no limit (podman 4.3)",
          "[cgroup][pids]") {
    LimitOptions older;
    older.pids_reading = PidsLimitReading::before_1_3;
    spec::Resources r;
    r.pids_limit = 0;
    CHECK(plan(r, older) == std::vector<std::string>{"pids.max=max"});
    r.pids_limit = -1;
    CHECK(plan(r, older) == std::vector<std::string>{"pids.max=max"});
    r.pids_limit = -7;
    CHECK(plan(r, older) == std::vector<std::string>{"pids.max=max"});
    r.pids_limit = 1;
    CHECK(plan(r, older) == std::vector<std::string>{"pids.max=1"});
    r.pids_limit = 2048;
    CHECK(plan(r, older) == std::vector<std::string>{"pids.max=2048"});
}

TEST_CASE("the pids.limit reading follows the config's ociVersion", "[cgroup][pids]") {
    for (const char* version : {"1.0.0", "1.0.2-dev", "1.0.2", "1.1.0", "1.1.0-rc.1", "1.2.1", "1.2.0+dev"})
        CHECK(pids_limit_reading(version) == PidsLimitReading::before_1_3);
    for (const char* version : {"1.3.0", "1.3.10", "1.3.0-rc.1", "1.30.0", "1.4.0"})
        CHECK(pids_limit_reading(version) == PidsLimitReading::spec_1_3);
}

TEST_CASE("blockIO uses io.bfq.weight when it exists and io.weight converted otherwise", "[cgroup]") {
    spec::Resources r;
    r.block_io.emplace();
    r.block_io->weight = 500;
    r.block_io->weight_device.push_back({8, 0, 300, {}});
    CHECK(plan(r, probing({"io.bfq.weight", "io.weight"})) ==
          std::vector<std::string>{"io.bfq.weight=500", "io.bfq.weight=8:0 300"});
    CHECK(plan(r, probing({"io.weight"})) == std::vector<std::string>{"io.weight=4950", "io.weight=8:0 2930"});
    r.block_io->weight = 5;
    CHECK(error_of(r, probing({"io.weight"})) == "linux.resources.blockIO.weight: 5 is outside the range 10-1000");
}

TEST_CASE("blockIO throttles become io.max lines and leaf weights are refused", "[cgroup]") {
    spec::Resources r;
    r.block_io.emplace();
    r.block_io->throttle_read_bps_device.push_back({8, 0, 1048576});
    r.block_io->throttle_write_bps_device.push_back({8, 0, 2097152});
    r.block_io->throttle_read_iops_device.push_back({253, 1, 100});
    r.block_io->throttle_write_iops_device.push_back({253, 1, 50});
    CHECK(plan(r) == std::vector<std::string>{"io.max=8:0 rbps=1048576", "io.max=8:0 wbps=2097152",
                                              "io.max=253:1 riops=100", "io.max=253:1 wiops=50"});
    r.block_io->leaf_weight = 10;
    CHECK(error_of(r) == "linux.resources.blockIO.leafWeight: not available on cgroup v2 (there are no leaf weights)");
    r.block_io->leaf_weight.reset();
    r.block_io->weight_device.push_back({8, 0, {}, 300});
    CHECK(error_of(r).starts_with("linux.resources.blockIO.weightDevice[0].leafWeight: not available"));
    r.block_io->weight_device = {{8, 0, {}, {}}};
    CHECK(error_of(r) == "linux.resources.blockIO.weightDevice[0]: has no weight");
    r.block_io->weight_device.clear();
    r.block_io->throttle_read_bps_device.push_back({-1, 0, 1});
    CHECK(error_of(r) == "linux.resources.blockIO.throttleReadBpsDevice[1]: device -1:0 is out of range");
}

TEST_CASE("hugepage limits write .max and .rsvd.max where the kernel has it", "[cgroup]") {
    spec::Resources r;
    r.hugepage_limits.push_back({"2MB", 4194304});
    CHECK(plan(r) == std::vector<std::string>{"hugetlb.2MB.max=4194304"});
    CHECK(plan(r, probing({"hugetlb.2MB.max", "hugetlb.2MB.rsvd.max"})) ==
          std::vector<std::string>{"hugetlb.2MB.max=4194304", "hugetlb.2MB.rsvd.max=4194304"});
    CHECK(plan(r, probing({"hugetlb.2MB.max"})) == std::vector<std::string>{"hugetlb.2MB.max=4194304"});
    CHECK(error_of(r, probing({"hugetlb.1GB.max"})) ==
          "linux.resources.hugepageLimits[0].pageSize: the kernel offers no 2MB huge pages (no hugetlb.2MB.max in "
          "/sys/fs/cgroup/c)");
    for (const char* bad : {"2mb", "2M", "MB", "02MB", "2.5MB", "../MB"}) {
        r.hugepage_limits = {{bad, 1}};
        CHECK(error_of(r) == "linux.resources.hugepageLimits[0].pageSize: \"" + std::string(bad) +
                                 "\" is not a page size like \"2MB\"");
    }
}

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
