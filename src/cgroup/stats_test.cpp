#include "cgroup/stats.hpp"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <thread>

#include "base/fs.hpp"
#include "cgroup/hierarchy.hpp"
#include "cgroup/test_cgroup.hpp"

using namespace husk::cgroup;
using namespace std::chrono_literals;

TEST_CASE("parse_flat_keyed reads key value lines and refuses anything else", "[cgroup][stats]") {
    auto pairs = parse_flat_keyed("low 0\nhigh 3\noom_kill 2\n", "memory.events");
    REQUIRE(pairs);
    REQUIRE(pairs->size() == 3);
    CHECK((*pairs)[2] == std::pair<std::string, std::uint64_t>("oom_kill", 2));
    auto bad = parse_flat_keyed("low zero\n", "x/memory.events");
    REQUIRE_FALSE(bad);
    CHECK(bad.error().message() == "unexpected line \"low zero\" in x/memory.events");
    CHECK_FALSE(parse_flat_keyed("lonely\n", "f"));
    CHECK_FALSE(parse_flat_keyed("neg -1\n", "f"));
}

TEST_CASE("parse_single_value reads a number or max", "[cgroup][stats]") {
    CHECK(parse_single_value("33554432\n", "f") == 33554432u);
    CHECK(parse_single_value("max\n", "f") == unlimited);
    CHECK_FALSE(parse_single_value("12 34\n", "f"));
    CHECK_FALSE(parse_single_value("", "f"));
}

TEST_CASE("parse_cpu_stat turns microseconds into nanoseconds like runc", "[cgroup][stats]") {
    auto cpu = parse_cpu_stat("usage_usec 1500\nuser_usec 1000\nsystem_usec 500\ncore_sched.force_idle_usec 0\n"
                              "nr_periods 10\nnr_throttled 4\nthrottled_usec 2000\nnr_bursts 0\nburst_usec 0\n",
                              "cpu.stat");
    REQUIRE(cpu);
    CHECK(cpu->total_ns == 1500000);
    CHECK(cpu->user_ns == 1000000);
    CHECK(cpu->kernel_ns == 500000);
    CHECK(cpu->periods == 10);
    CHECK(cpu->throttled_periods == 4);
    CHECK(cpu->throttled_ns == 2000000);
    // Without the cpu controller only the usage lines exist.
    auto core = parse_cpu_stat("usage_usec 7\nuser_usec 5\nsystem_usec 2\n", "cpu.stat");
    REQUIRE(core);
    CHECK(core->periods == 0);
}

TEST_CASE("parse_io_stat maps bytes and ios per device and skips the rest", "[cgroup][stats]") {
    auto io = parse_io_stat("8:0 rbytes=4096 wbytes=8192 rios=1 wios=2 dbytes=0 dios=0\n"
                            "253:1 rbytes=0 wbytes=0 rios=0 wios=0 dbytes=0 dios=0\n",
                            "io.stat");
    REQUIRE(io);
    REQUIRE(io->service_bytes.size() == 4);
    CHECK(io->service_bytes[0].major == 8);
    CHECK(io->service_bytes[0].op == "Read");
    CHECK(io->service_bytes[0].value == 4096);
    CHECK(io->service_bytes[1].op == "Write");
    CHECK(io->service_bytes[2].major == 253);
    CHECK(io->service_bytes[2].minor == 1);
    REQUIRE(io->serviced.size() == 4);
    CHECK(io->serviced[1].value == 2);
    CHECK(parse_io_stat("", "io.stat")->service_bytes.empty());
    CHECK_FALSE(parse_io_stat("8-0 rbytes=1\n", "io.stat"));
    CHECK_FALSE(parse_io_stat("8:0 rbytes=x\n", "io.stat"));
}

TEST_CASE("stats_event_json has runc's shape, leaving out zero fields the way Go's omitempty does",
          "[cgroup][stats]") {
    Stats s;
    s.cpu.total_ns = 3000;
    s.cpu.user_ns = 2000;
    s.cpu.kernel_ns = 1000;
    s.memory.cache = 4096;
    s.memory.usage = MemoryEntry{unlimited, 8192, 0, 0};
    s.memory.raw = {{"anon", 4096}, {"file", 4096}};
    s.pids = PidsStats{2, 0};
    s.blkio.service_bytes.push_back(BlkioEntry{8, 0, "Read", 512});
    s.hugetlb.push_back(HugetlbStats{"2MB", 0, 1});
    CHECK(stats_event_json("c1", s) ==
          R"({"type":"stats","id":"c1","data":{)"
          R"("cpu":{"usage":{"total":3000,"kernel":1000,"user":2000},"throttling":{}},)"
          R"("cpuset":{"cpu_exclusive":0,"mem_hardwall":0,"mem_exclusive":0,"memory_migrate":0,)"
          R"("memory_spread_page":0,"memory_spread_slab":0,"memory_pressure":0,"sched_load_balance":0,)"
          R"("sched_relax_domain_level":0},)"
          R"("memory":{"cache":4096,"usage":{"limit":18446744073709551615,"usage":8192,"failcnt":0},)"
          R"("swap":{"limit":0,"failcnt":0},"kernel":{"limit":0,"failcnt":0},"kernelTCP":{"limit":0,"failcnt":0},)"
          R"("raw":{"anon":4096,"file":4096}},)"
          R"("pids":{"current":2},)"
          R"("blkio":{"ioServiceBytesRecursive":[{"major":8,"op":"Read","value":512}]},)"
          R"("hugetlb":{"2MB":{"failcnt":1}},"intel_rdt":{},"network_interfaces":null}})");
    CHECK(oom_event_json("c1") == R"({"type":"oom","id":"c1"})");
}

TEST_CASE("read_stats reads a real cgroup: cpu.stat without the cpu controller, pids from cgroup.procs",
          "[cgroup][stats]") {
    testing::ScratchCgroups scratch;
    auto cgroup = create_cgroup(scratch.plan("stats"));
    REQUIRE(cgroup);
    auto child = testing::spawn_in_cgroup(cgroup->dir_fd(), []() -> int {
        // Burn a little CPU so usage_usec is not zero, then wait to be killed.
        auto until = std::chrono::steady_clock::now() + 30ms;
        while (std::chrono::steady_clock::now() < until) {
        }
        for (;;) ::pause();
    });
    std::this_thread::sleep_for(80ms);
    std::string where = cgroup->location().where();
    auto stats = read_stats(cgroup->dir_fd(), where);
    REQUIRE(stats);
    CHECK(stats->cpu.total_ns > 0);
    CHECK(stats->cpu.total_ns >= stats->cpu.user_ns);
    CHECK(stats->pids.current == 1);
    bool has_memory = ::faccessat(cgroup->dir_fd(), "memory.stat", F_OK, 0) == 0;
    if (has_memory) {
        CHECK_FALSE(stats->memory.raw.empty());
        CHECK(stats->memory.usage.usage > 0);
    } else {
        // This host (hybrid): the memory controller is bound to cgroup v1, so runc's zero values.
        CHECK(stats->memory.raw.empty());
        CHECK(stats->memory.usage.limit == 0);
    }
    // hugetlb is the one controller this host's v2 hierarchy has: when the v2 root hands it down, enable it
    // for the scratch cgroup's child and read its files too.
    std::string scratch_root = scratch.mount() + scratch.root();
    auto offered = husk::read_file(scratch_root + "/cgroup.controllers");
    if (offered && offered->find("hugetlb") != std::string::npos &&
        husk::write_existing_file(scratch_root + "/cgroup.subtree_control", "+hugetlb")) {
        auto with_hugetlb = read_stats(cgroup->dir_fd(), where);
        REQUIRE(with_hugetlb);
        REQUIRE_FALSE(with_hugetlb->hugetlb.empty());
        for (const HugetlbStats& h : with_hugetlb->hugetlb) {
            CHECK(h.page_size.find('.') == std::string::npos);
            CHECK(h.usage == 0);  // the child maps no huge pages
        }
        CHECK(stats_event_json("scratch", *with_hugetlb).find(R"("hugetlb":{")") != std::string::npos);
    }
    auto oom = read_oom_count(cgroup->dir_fd(), where);
    REQUIRE(oom);
    CHECK(oom->has_value() == has_memory);
    std::string json = stats_event_json("scratch", *stats);
    CHECK(json.starts_with(R"({"type":"stats","id":"scratch","data":{"cpu":{"usage":{"total":)"));
    CHECK(json.find(R"("pids":{"current":1})") != std::string::npos);
}

TEST_CASE("read_stats fails once the cgroup is gone", "[cgroup][stats]") {
    testing::ScratchCgroups scratch;
    auto cgroup = create_cgroup(scratch.plan("gone"));
    REQUIRE(cgroup);
    REQUIRE(remove_cgroup(cgroup->location()));
    CHECK_FALSE(read_stats(cgroup->dir_fd(), cgroup->location().where()));
}
