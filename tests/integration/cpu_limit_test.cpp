// The CPU budget (run.husk.cpu-limit, DESIGN.md §4) on the cgroup's cpu.stat usage_usec. cpu.stat is a
// cgroup v2 core file, so this works on the hybrid host without any v2 controller.
#include <catch2/catch.hpp>

#include <signal.h>

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
                                 "--cgroup-manager is disabled"));
    check_nothing_left(sb);
}
