// The CPU budget (run.husk.cpu-limit; docs/husk.8.md, "LIMITS") on the cgroup's cpu.stat usage_usec. cpu.stat is a
// cgroup v2 core file, so this works on the hybrid host without any v2 controller.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <thread>

#include "harness.hpp"
#include "monitor_support.hpp"

using namespace husk::test;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

TEST_CASE("a busy loop is killed when the CPU budget is used up and state says cpu-limit",
          "[integration][monitor][cpu-limit]") {
    Sandbox sb;
    Bundle b = with_args(sb, {"/bin/sh", "-c", "while :; do :; done"});
    std::string id = sb.id("busy");
    Output run = sb.run(b, id, {"--keep", "--cpu-limit", "300ms", "--timeout", "60s"});
    INFO(run.describe());
    CHECK(run.exit_code == 128 + SIGKILL);
    Json st = wait_for_exit(sb, id);
    INFO("state: " << st.dump());
    const Json& exit = st["husk"]["exit"];
    CHECK(exit["reason"].str() == "cpu-limit");
    CHECK(exit["signal"].num() == SIGKILL);
    CHECK_THAT(exit["detail"].str(), StartsWith("CPU budget 300ms used up (cpu.stat usage_usec +"));
    // Stopped at the budget, not long after: the timer is re-armed from what is left.
    CHECK(st["husk"]["usage"]["cpuUsec"].num() >= 300000);
    CHECK(st["husk"]["usage"]["cpuUsec"].num() < 600000);
    delete_and_check(sb, id);
}

TEST_CASE("forked workers share one CPU budget", "[integration][monitor][cpu-limit]") {
    Sandbox sb;
    Bundle b = with_args(sb, {"/bin/sh", "-c", "(while :; do :; done) & (while :; do :; done) & wait"});
    std::string id = sb.id("workers");
    create_and_start(sb, b, id, {"--cpu-limit", "400ms"});
    Json st = wait_for_exit(sb, id);
    INFO("state: " << st.dump());
    CHECK(st["husk"]["exit"]["reason"].str() == "cpu-limit");
    CHECK(st["husk"]["usage"]["cpuUsec"].num() >= 400000);
    CHECK(st["husk"]["usage"]["cpuUsec"].num() < 800000);
    delete_and_check(sb, id);
}

TEST_CASE("an idle workload under a CPU budget exits by itself", "[integration][monitor][cpu-limit]") {
    Sandbox sb;
    Bundle b = with_args(sb, {"/bin/sh", "-c", "sleep 1; exit 4"});
    std::string id = sb.id("idle");
    Output run = sb.run(b, id, {"--keep", "--cpu-limit", "100ms"});
    INFO(run.describe());
    CHECK(run.exit_code == 4);
    Json st = wait_for_exit(sb, id);
    CHECK(st["husk"]["exit"]["reason"].str() == "exited");
    CHECK(st["husk"]["exit"]["code"].num() == 4);
    delete_and_check(sb, id);
}

TEST_CASE("the CPU budget counts from start, not from create", "[integration][monitor][cpu-limit]") {
    Sandbox sb;
    Bundle b = with_args(sb, {"/bin/sh", "-c", "while :; do :; done"});
    std::string id = sb.id("budget-start");
    Output created = sb.create(b, id, {"--cpu-limit", "200ms"});
    require_ok(created);
    std::this_thread::sleep_for(Ms(500));
    CHECK(sb.state(id)["status"].str() == "created");
    require_ok(sb.husk({"start", id}));
    Json st = wait_for_exit(sb, id);
    CHECK(st["husk"]["exit"]["reason"].str() == "cpu-limit");
    delete_and_check(sb, id);
}

TEST_CASE("a CPU budget without a cgroup is refused and leaves nothing behind", "[integration][monitor][cpu-limit]") {
    Sandbox sb;
    Bundle b = with_args(sb, {"/bin/true"});
    b.config["linux"].erase("resources");  // runc's default device list needs a cgroup
    b.write();
    std::string id = sb.id("nocg");
    Output out = sb.husk({"--cgroup-manager", "disabled", "create", "--bundle", b.dir, "--cpu-limit", "1s", id});
    INFO(out.describe());
    CHECK(out.exit_code == 1);
    CHECK_THAT(out.err, Contains("annotations[\"run.husk.cpu-limit\"]: needs the container's cgroup (cpu.stat), and "
                                 "the cgroup manager is disabled"));
    check_nothing_left(sb);
}

// A limit reached just before the exit, for the CPU budget: the workload uses up its budget and exits 0 before
// the monitor acts on it, so there is nobody left to kill. Made deterministic: the monitor (its budget timer
// armed from exec) is stopped while the workload runs, so it finds the exit and its expired timer in one wakeup.
TEST_CASE("a workload that exits 0 after using up its CPU budget makes husk run exit 123, the record keeps code 0",
          "[integration][monitor][cpu-limit]") {
    Sandbox sb;
    // Blocked in open(2) on a FIFO until the test writes it: no CPU used before the monitor is stopped.
    Bundle b = with_args(sb, {"/bin/sh", "-c", "read go < /go; exec /probe burn 300"});
    REQUIRE(::mkfifo((b.rootfs() + "/go").c_str(), 0600) == 0);
    b.write();
    std::string id = sb.id("burnt");
    std::string pid_file = sb.dir() + "/burnt.pid";
    Process run =
        sb.spawn_husk({"run", "--keep", "--bundle", b.dir, "--pid-file", pid_file, "--cpu-limit", "100ms", id});
    pid_t monitor = 0;
    for (auto deadline = std::chrono::steady_clock::now() + Ms(20000);
         !(monitor > 0 && monitor_timer_armed(monitor)) && std::chrono::steady_clock::now() < deadline;
         std::this_thread::sleep_for(Ms(10))) {
        try {
            monitor = static_cast<pid_t>(state_record(sb, id)["monitorPid"].num());
        } catch (const std::exception&) {  // not written yet: husk run is still creating
        }
    }
    REQUIRE(monitor > 0);
    REQUIRE(monitor_timer_armed(monitor));
    {
        StoppedMonitor stopped(monitor);
        int go = ::open((b.rootfs() + "/go").c_str(), O_RDWR | O_CLOEXEC);  // O_RDWR: never waits for the reader
        REQUIRE(go >= 0);
        CHECK(::write(go, "go\n", 3) == 3);
        wait_until_init_exited(pid_file);  // 300 ms of CPU, three times the budget, and exit 0
        ::close(go);
    }
    Output out = run.wait();
    INFO(out.describe());
    Json st = wait_for_exit(sb, id);
    INFO("state: " << st.dump());
    const Json& exit = st["husk"]["exit"];
    CHECK(exit["reason"].str() == "cpu-limit");
    CHECK(exit["code"].num() == 0);  // what the kernel reported, not a made-up code
    CHECK(exit["signal"].num() == 0);
    CHECK((exit.contains("exitedAfterLimit") && exit["exitedAfterLimit"].boolean()));
    CHECK_THAT(exit["detail"].str(), StartsWith("CPU budget 100ms used up (cpu.stat usage_usec +"));
    CHECK_THAT(exit["detail"].str(), Contains("; the workload exited on its own with code 0 after the limit fired"));
    // Never 0 when a limit fired: the status for "cpu-limit, the workload exited on its own".
    CHECK(out.exit_code == 123);
    CHECK(st["husk"]["usage"]["cpuUsec"].num() >= 300000);
    delete_and_check(sb, id);
}
