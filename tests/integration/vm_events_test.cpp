// VM tests: `husk events` against a cgroup with real controllers: the stats carry the limits the kernel
// holds and the counters it keeps, an OOM kill shows up as an oom event before `stopped` says oom, and forks
// refused at pids.max show up as pids-limit events.
#include <catch2/catch.hpp>

#include <chrono>
#include <thread>

#include "vm_support.hpp"

using namespace husk::test;
using namespace husk::test::vm;

namespace {

constexpr long long mib = 1024 * 1024;

}  // namespace

TEST_CASE("events --stats reports the memory and pids limits and cpu throttling the kernel keeps",
          "[.vm][events]") {
    require_vm();
    Sandbox sb;
    Bundle b = sb.bundle();
    b.config["linux"]["resources"]["memory"] = Json::object({{"limit", 64 * mib}, {"swap", 64 * mib}});
    b.config["linux"]["resources"]["pids"] = Json::object({{"limit", 32}});
    b.config["linux"]["resources"]["cpu"] = Json::object({{"quota", 10000}, {"period", 100000}});
    b.config["process"]["args"] = Json::strings({"/bin/sh", "-c", "while :; do :; done"});
    std::string id = sb.id("evstats");
    require_ok(sb.create(b, id));
    require_ok(sb.husk({"start", id}));
    std::string cgroup = cgroup_dir(sb, id);
    REQUIRE(wait_until([&] { return keyed_value(cgroup + "/cpu.stat", "nr_throttled") > 0; }, Ms(20000)));

    Output stats = sb.husk({"events", "--stats", id});
    require_ok(stats);
    INFO(stats.out);
    Json event = Json::parse(stats.out);
    CHECK(event["type"].str() == "stats");
    const Json& data = event["data"];
    CHECK(data["memory"]["usage"]["limit"].num() == 64 * mib);
    CHECK(data["memory"]["usage"]["usage"].num() > 0);
    CHECK(data["memory"]["raw"].contains("anon"));
    CHECK(data["pids"]["limit"].num() == 32);
    CHECK(data["pids"]["current"].num() >= 1);
    CHECK(data["cpu"]["throttling"]["throttledPeriods"].num() > 0);
    CHECK(data["cpu"]["usage"]["total"].num() > 0);
    kill_and_delete(sb, id);
    check_nothing_left(sb);
}

TEST_CASE("events prints an oom event when the kernel OOM-kills in the container, then stopped with reason oom",
          "[.vm][events]") {
    require_vm();
    Sandbox sb;
    Bundle b = sb.bundle();
    b.config["linux"]["resources"]["memory"] = Json::object({{"limit", 32 * mib}, {"swap", 32 * mib}});
    // Waits for the watcher to be there, then allocates past the limit.
    b.config["process"]["args"] = Json::strings(
        {"/bin/sh", "-c",
         "while [ ! -e /tmp/go ]; do sleep 0.1; done; exec awk 'BEGIN { s = \"x\"; while (1) s = s s }'"});
    std::string id = sb.id("evoom");
    require_ok(sb.create(b, id));
    require_ok(sb.husk({"start", id}));
    Process watcher = sb.spawn_husk({"events", "--interval", "200ms", id});
    REQUIRE(wait_until([&] { return !lines(watcher.current_out()).empty(); }, Ms(20000)));
    touch_in_rootfs(b, "/tmp/go");

    Output done = watcher.wait();
    INFO(done.describe());
    CHECK(done.exit_code == 0);
    int ooms = 0;
    std::vector<std::string> all = lines(done.out);
    REQUIRE_FALSE(all.empty());
    for (const std::string& line : all) {
        Json event = Json::parse(line);
        CHECK(event["id"].str() == id);
        if (event["type"].str() == "oom") ++ooms;
    }
    CHECK(ooms >= 1);
    CHECK(Json::parse(all.front())["type"].str() == "started");
    // The oom events come before the verdict, which is the last line and says what state says.
    Json stopped = Json::parse(all.back());
    REQUIRE(stopped["type"].str() == "stopped");
    CHECK(stopped["data"]["reason"].str() == "oom");
    CHECK(stopped["data"]["signal"].num() == 9);
    CHECK(stopped["data"]["usage"]["memoryPeakBytes"].num() > 0);
    Json st = sb.wait_for_status(id, "stopped");
    CHECK(st["husk"]["exit"]["reason"].str() == "oom");
    CHECK(stopped["data"]["detail"].str() == st["husk"]["exit"]["detail"].str());
    require_ok(sb.husk({"delete", id}));
    check_nothing_left(sb);
}

TEST_CASE("forks refused at pids.max are pids-limit events with the number of new hits", "[.vm][events]") {
    require_vm();
    Sandbox sb;
    Bundle b = sb.bundle();
    b.config["linux"]["resources"]["pids"] = Json::object({{"limit", 16}});
    // Waits for the watcher, then forks until pids.max refuses, twice, then sleeps.
    b.config["process"]["args"] = Json::strings(
        {"/bin/sh", "-c",
         "while [ ! -e /tmp/go ]; do sleep 0.1; done; /probe fork 1000; /probe fork 1000; exec /probe sleep 60"});
    std::string id = sb.id("evpids");
    Output created = sb.create(b, id);
    require_ok(created);
    require_ok(sb.husk({"start", id}));
    std::string cgroup = cgroup_dir(sb, id);
    Process watcher = sb.spawn_husk({"events", "--interval", "1h", id});
    REQUIRE(wait_until([&] { return !lines(watcher.current_out()).empty(); }, Ms(20000)));
    touch_in_rootfs(b, "/tmp/go");
    REQUIRE(wait_for_output(created, "sleeping"));
    long long hits = keyed_value(cgroup + "/pids.events", "max");
    CHECK(hits >= 2);
    // The events are told as they happen: all of them are there before the container stops.
    REQUIRE(wait_until([&] {
        long long told = 0;
        for (const Json& event : json_lines(watcher.current_out()))
            if (event["type"].str() == "pids-limit") told += event["data"]["count"].num();
        return told == hits;
    }));
    require_ok(sb.husk({"kill", id, "KILL"}));

    Output done = watcher.wait();
    INFO(done.describe());
    CHECK(done.exit_code == 0);
    std::vector<Json> events = json_lines(done.out);
    REQUIRE(events.size() >= 3);
    CHECK(events.front()["type"].str() == "started");
    for (const Json& event : events) {
        CHECK(event["id"].str() == id);
        if (event["type"].str() == "pids-limit") CHECK(event["data"]["count"].num() > 0);
    }
    // The verdict carries the same hits as the pids-limit factor.
    const Json& stopped = events.back();
    REQUIRE(stopped["type"].str() == "stopped");
    CHECK(stopped["data"]["reason"].str() == "killed");
    REQUIRE(stopped["data"].contains("factors"));
    REQUIRE(stopped["data"]["factors"].size() == 1);
    CHECK(stopped["data"]["factors"].at(0)["kind"].str() == "pids-limit");
    CHECK(stopped["data"]["factors"].at(0)["count"].num() == hits);
    sb.wait_for_status(id, "stopped");
    require_ok(sb.husk({"delete", id}));
    check_nothing_left(sb);
}

TEST_CASE("the final state carries husk.usage: cpu time, memory peak and pids peak of the whole cgroup",
          "[.vm][usage]") {
    require_vm();
    Sandbox sb;
    Bundle b = sb.bundle();
    b.config["linux"]["resources"]["memory"] = Json::object({{"limit", 64 * mib}, {"swap", 64 * mib}});
    // Three processes at once (sh, the backgrounded sleep, the awk) and some CPU time in a child.
    b.config["process"]["args"] = Json::strings(
        {"/bin/sh", "-c",
         "sleep 1 & awk 'BEGIN { s = \"x\"; for (i = 0; i < 22; i++) s = s s; for (i = 0; i < 200000; i++) n++ }'; "
         "wait"});
    Json st = [&] {
        std::string id = sb.id("usage");
        Output out = sb.run(b, id, {"--keep"});
        require_ok(out);
        Json state = sb.state(id);
        require_ok(sb.husk({"delete", id}));
        return state;
    }();
    INFO(st.dump());
    REQUIRE(st["husk"].contains("usage"));
    const Json& usage = st["husk"]["usage"];
    CHECK(usage["cpuUsec"].num() > 0);
    CHECK(usage["memoryPeakBytes"].num() >= 4 * mib);  // the awk string alone is 4 MiB
    CHECK(usage["pidsPeak"].num() >= 3);
    check_nothing_left(sb);
}
