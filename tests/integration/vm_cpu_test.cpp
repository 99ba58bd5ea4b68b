// VM tests: linux.resources.cpu as the kernel applies it: cpu.max throttles (cpu.stat nr_throttled), shares,
// burst and idle land in cpu.weight, cpu.max.burst and cpu.idle, and cpus/mems bound the workload (cpuset).
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>

#include "vm_support.hpp"

using namespace husk::test;
using namespace husk::test::vm;

TEST_CASE("cpu quota and period throttle a busy loop (cpu.stat nr_throttled)", "[.vm][cpu]") {
    require_vm();
    Sandbox sb;
    Bundle b = sb.bundle();
    b.config["linux"]["resources"]["cpu"] = Json::object({{"quota", 10000}, {"period", 100000}});
    b.config["process"]["args"] = Json::strings({"/bin/sh", "-c", "while :; do :; done"});
    std::string id = sb.id("quota");
    require_ok(sb.create(b, id));
    std::string cgroup = cgroup_dir(sb, id);
    CHECK(read_value(cgroup + "/cpu.max") == "10000 100000");
    require_ok(sb.husk({"start", id}));

    CHECK(wait_until([&] { return keyed_value(cgroup + "/cpu.stat", "nr_throttled") >= 5; }));
    INFO(read_file(cgroup + "/cpu.stat"));
    CHECK(keyed_value(cgroup + "/cpu.stat", "throttled_usec") > 0);
    // 10% of one cpu: over nr_periods periods of 100 ms it got at most ~10 ms each (plus one period's slack).
    long long periods = keyed_value(cgroup + "/cpu.stat", "nr_periods");
    CHECK(keyed_value(cgroup + "/cpu.stat", "usage_usec") <= (periods + 1) * 10000 + 20000);
    kill_and_delete(sb, id);
    check_nothing_left(sb);
}

TEST_CASE("a CPU budget under a cpu.max quota is counted in CPU time, not wall time", "[.vm][cpu][cpu-limit]") {
    require_vm();
    Sandbox sb;
    Bundle b = sb.bundle();
    b.config["linux"]["resources"]["cpu"] = Json::object({{"quota", 20000}, {"period", 100000}});
    b.config["process"]["args"] = Json::strings({"/bin/sh", "-c", "while :; do :; done"});
    std::string id = sb.id("budget");
    require_ok(sb.create(b, id, {"--cpu-limit", "300ms"}));
    // The budget counts from exec: init's setup before it (slow under TCG) is in usage_usec, not in the budget.
    std::string cgroup = cgroup_dir(sb, id);
    long long setup = keyed_value(cgroup + "/cpu.stat", "usage_usec");
    auto started = std::chrono::steady_clock::now();
    require_ok(sb.husk({"start", id}));
    Json st = wait_for_exit(sb, id);
    auto elapsed = std::chrono::duration_cast<Ms>(std::chrono::steady_clock::now() - started);
    INFO("state: " << st.dump() << "; setup " << setup << " us; " << elapsed.count() << " ms from start");
    CHECK(st["husk"]["exit"]["reason"].str() == "cpu-limit");
    CHECK(st["husk"]["exit"]["code"].num() == 128 + 9);
    // A fifth of a CPU: 300 ms of CPU take about 1.5 s of wall time (fifteen 20 ms quotas); a budget counted in
    // wall time ends at 300 ms. The floor sits far from both: a TCG guest on a loaded host charges the time
    // its vCPU was descheduled to the running task in lumps the throttle cannot undo (seen: 300 ms used 422 ms
    // after start at half a CPU, and 810-930 ms after start at a fifth), so a floor near the nominal time
    // loses that race. With the used-CPU check below, this still tells CPU time from wall time.
    CHECK(elapsed >= Ms(500));
    long long used = static_cast<long long>(st["husk"]["usage"]["cpuUsec"].num()) - setup;
    CHECK(used >= 300000);
    // Until what is left is half this quota, the hold is this quota itself: a monitor that wakes late lets the
    // container run on at a fifth of a CPU meanwhile. A TCG guest on a loaded host also charges the time its vCPU
    // was descheduled to the running task, in lumps the throttle cannot undo (seen: 472 ms from start with
    // the detection at +343 ms). So: at most 300 ms over, a 1.5 s stall at a fifth of a CPU. The old bound (450 ms)
    // was on usage_usec including init's setup (150-430 ms seen under TCG), so it failed for the setup's sake.
    CHECK(used < 600000);
    // The monitor held the cgroup to what was left (never looser than this quota) and put the quota back.
    CHECK(read_value(cgroup + "/cpu.max") == "20000 100000");
    require_ok(sb.husk({"delete", id}));
    check_nothing_left(sb);
}

// The hold (src/cgroup/cpu_hold.cpp) on its own: with the monitor stopped, nothing but cpu.max can stop busy
// workers at the budget. An earlier version of this test was intermittent: its workload polled for the go
// (a fork and exec of busybox every 50 ms, at TCG speed), spending the budget the test meant to leave whole
// while the monitor still ran; the test did not wait for its SIGSTOP to take effect (kill(2) returns first);
// and its bound allowed 8 ms past the held quota, less than what a TCG vCPU that the loaded host descheduled
// is charged in one lump. Here the workload waits in open(2) on a FIFO (no CPU), the test waits for the
// monitor to be stopped (state T) and reads the hold it left, and the bound allows for lumps: without the
// hold nothing is throttled at all.
TEST_CASE("with the cpu controller the kernel holds busy workers at the CPU budget while the monitor cannot run",
          "[.vm][cpu][cpu-limit][cpu-hold]") {
    require_vm();
    Sandbox sb;
    Bundle b = sb.bundle();
    // Three busy workers on the guest's two CPUs: without the hold they use 2 s of CPU a second.
    b.config["process"]["args"] =
        Json::strings({"/bin/sh", "-c", "read go < /go; for w in 1 2 3; do (while :; do :; done) & done; wait"});
    REQUIRE(::mkfifo((b.rootfs() + "/go").c_str(), 0600) == 0);
    std::string id = sb.id("hold");
    // The hold limits each 1 s period to what is left: the workers must be able to use that within a period
    // beside stress-ng (3 of 7 busy tasks on 2 CPUs: about 0.85 s; with a 1 s budget they were never
    // throttled). Not much less either: usage_usec is charged in lumps under TCG (see below), and a lump as
    // large as the budget before the test stops the monitor would let it kill the waiting workload.
    create_and_start(sb, b, id, {"--cpu-limit", "300ms"});
    std::string cgroup = cgroup_dir(sb, id);
    pid_t monitor = static_cast<pid_t>(state_record(sb, id)["monitorPid"].num());
    // From exec on (its timer armed) the monitor holds the cgroup to what is left + 1 ms per CPU over a 1 s
    // period, renewed at each wakeup (the idle workload leaves all of it).
    REQUIRE(wait_until([&] { return monitor_timer_armed(monitor); }));
    StoppedMonitor stopped(monitor);
    long long quota = 0, period = 0;
    std::string held = read_value(cgroup + "/cpu.max");
    INFO("cpu.max held by the stopped monitor: " << held);
    CHECK(std::sscanf(held.c_str(), "%lld %lld", &quota, &period) == 2);
    CHECK(period == 1000000);
    CHECK(quota <= 300000 + 2 * 1000);
    long long usage_before = keyed_value(cgroup + "/cpu.stat", "usage_usec");
    long long periods_before = keyed_value(cgroup + "/cpu.stat", "nr_periods");
    long long throttled_before = keyed_value(cgroup + "/cpu.stat", "nr_throttled");
    int go = ::open((b.rootfs() + "/go").c_str(), O_RDWR | O_CLOEXEC);  // O_RDWR: never waits for the reader
    REQUIRE(go >= 0);
    CHECK(::write(go, "go\n", 3) == 3);
    // Only the kernel can stop the workers now: they are throttled once they have used the held quota.
    bool throttled =
        wait_until([&] { return keyed_value(cgroup + "/cpu.stat", "nr_throttled") > throttled_before; });
    std::string stat = read_file(cgroup + "/cpu.stat");
    ::close(go);
    INFO("cpu.stat when throttled:\n" << stat);
    REQUIRE(throttled);
    write_file(sb.dir() + "/cpu.stat", stat);
    long long used = keyed_value(sb.dir() + "/cpu.stat", "usage_usec") - usage_before;
    long long periods = keyed_value(sb.dir() + "/cpu.stat", "nr_periods") - periods_before;
    // The held quota per period begun since, plus what the kernel charges past it before it throttles: a tick
    // per CPU on a real machine, but a TCG vCPU that the loaded host descheduled is charged the whole gap at
    // once. 100 ms covers those lumps; without the hold nothing throttles at all.
    CHECK(used <= (periods + 1) * quota + 100000);
    // Resumed, the monitor finds the budget used up, kills, and puts cpu.max back.
    stopped.resume();
    Json st = wait_for_exit(sb, id);
    INFO("state: " << st.dump());
    CHECK(st["husk"]["exit"]["reason"].str() == "cpu-limit");
    CHECK(st["husk"]["exit"]["signal"].num() == 9);
    CHECK(read_value(cgroup + "/cpu.max") == "max 100000");
    require_ok(sb.husk({"delete", id}));
    check_nothing_left(sb);
}

TEST_CASE("cpu shares, burst and idle land in cpu.weight, cpu.max.burst and cpu.idle", "[.vm][cpu]") {
    // The conversion of runc >= 1.3.2 and crun >= 1.23 (src/cgroup/limits.cpp) maps the fixed points 2 → 1,
    // 1024 → 100 (both defaults) and 262144 → 10000; 512 → 59 on its log-quadratic curve.
    auto [shares, weight] = GENERATE(std::pair{2ULL, "1"}, std::pair{512ULL, "59"}, std::pair{1024ULL, "100"},
                                     std::pair{262144ULL, "10000"});
    require_vm();
    Sandbox sb;
    Bundle b = sb.bundle();
    b.config["linux"]["resources"]["cpu"] =
        Json::object({{"shares", shares}, {"quota", 50000}, {"period", 100000}, {"burst", 20000}, {"idle", 0}});
    b.config["process"]["args"] = Json::strings({"/probe", "sleep", "60"});
    std::string id = sb.id("shares");
    require_ok(sb.create(b, id));
    std::string cgroup = cgroup_dir(sb, id);
    CHECK(read_value(cgroup + "/cpu.weight") == weight);
    CHECK(read_value(cgroup + "/cpu.max") == "50000 100000");
    CHECK(read_value(cgroup + "/cpu.max.burst") == "20000");
    CHECK(read_value(cgroup + "/cpu.idle") == "0");
    require_ok(sb.husk({"delete", "--force", id}));
    check_nothing_left(sb);
}

TEST_CASE("cpuset cpus and mems land and the workload may run only there", "[.vm][cpu]") {
    require_vm();
    REQUIRE(read_value("/sys/fs/cgroup/cpuset.cpus.effective") == "0-1");  // run-in-vm.sh: -smp 2
    Sandbox sb;
    Bundle b = sb.bundle();
    b.config["linux"]["resources"]["cpu"] = Json::object({{"cpus", "1"}, {"mems", "0"}});
    b.config["process"]["args"] =
        Json::strings({"/bin/sh", "-c", "/probe read /proc/self/status; exec /probe sleep 60"});
    std::string id = sb.id("cpuset");
    Output created = sb.create(b, id);
    require_ok(created);
    std::string cgroup = cgroup_dir(sb, id);
    CHECK(read_value(cgroup + "/cpuset.cpus") == "1");
    CHECK(read_value(cgroup + "/cpuset.mems") == "0");
    CHECK(read_value(cgroup + "/cpuset.cpus.effective") == "1");
    CHECK(read_value(cgroup + "/cpuset.mems.effective") == "0");
    require_ok(sb.husk({"start", id}));
    REQUIRE(wait_for_output(created, "sleeping"));
    std::string status = json_lines(created.current_out()).at(0)["content"].str();
    CHECK_THAT(status, Catch::Matchers::Contains("Cpus_allowed_list:\t1\n"));
    CHECK_THAT(status, Catch::Matchers::Contains("Mems_allowed_list:\t0\n"));
    kill_and_delete(sb, id);
    check_nothing_left(sb);
}
