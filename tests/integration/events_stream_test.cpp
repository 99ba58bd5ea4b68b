// The `events` stream's transitions on this host (no cgroup v2 controller needed): created, started, the cause
// the monitor records before it stops a container (timeout), and stopped with the verdict `state` prints, after
// which the stream ends; it never holds up delete. oom and pids-limit need controllers: vm_events_test.cpp.
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <thread>

#include "harness.hpp"

using namespace husk::test;
using Catch::Matchers::Contains;

namespace {

void require_ok(const Output& out) {
    INFO(out.describe());
    REQUIRE(out.exit_code == 0);
}

Bundle with_args(Sandbox& sb, std::vector<std::string> args) {
    Bundle b = sb.bundle();
    b.config["process"]["args"] = Json::strings(args);
    return b;
}

// A stream with stats far apart, so that the lines are the transitions.
Process watch(Sandbox& sb, const std::string& id) { return sb.spawn_husk({"events", "--interval", "1h", id}); }

std::vector<Json> events_of(const std::string& out) {
    std::vector<Json> events;
    for (const std::string& line : lines(out)) events.push_back(Json::parse(line));
    return events;
}

std::vector<std::string> types_of(const std::vector<Json>& events) {
    std::vector<std::string> types;
    for (const Json& event : events) types.push_back(event["type"].str());
    return types;
}

// Waits until the stream has printed `count` lines (the first one says it is watching).
void wait_for_lines(const Process& watcher, size_t count, Ms timeout = Ms(10000)) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    while (lines(watcher.current_out()).size() < count && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(Ms(10));
    INFO("stream so far: " << watcher.current_out());
    REQUIRE(lines(watcher.current_out()).size() >= count);
}

// The stream's end: exit 0 promptly, every line naming the container, `stopped` last.
std::vector<Json> finished_stream(Process& watcher, const std::string& id) {
    Output done = watcher.wait();
    INFO(done.describe());
    REQUIRE(done.exit_code == 0);
    std::vector<Json> events = events_of(done.out);
    REQUIRE_FALSE(events.empty());
    for (const Json& event : events) CHECK(event["id"].str() == id);
    CHECK(events.back()["type"].str() == "stopped");
    return events;
}

Json state_record(const Sandbox& sb, const std::string& id) {
    return Json::parse(read_file(sb.root() + "/" + id + "/state.json"));
}

void reap_if_ours(pid_t pid) {
    if (proc_parent(pid) == getpid()) waitpid(pid, nullptr, 0);
}

void delete_and_check(Sandbox& sb, const std::string& id) {
    require_ok(sb.husk({"delete", id}));
    check_nothing_left(sb);
}

}  // namespace

TEST_CASE("events on a created container prints created, started after start, then stopped with the exit and ends",
          "[integration][events]") {
    Sandbox sb;
    Bundle b = with_args(sb, {"/probe", "exit", "3"});
    std::string id = sb.id("evlife");
    require_ok(sb.create(b, id));
    Process watcher = watch(sb, id);
    wait_for_lines(watcher, 1);
    require_ok(sb.husk({"start", id}));

    std::vector<Json> events = finished_stream(watcher, id);
    CHECK(types_of(events) == std::vector<std::string>{"created", "started", "stopped"});
    const Json& data = events.back()["data"];
    CHECK(data["code"].num() == 3);
    CHECK(data["signal"].num() == 0);
    CHECK(data["reason"].str() == "exited");
    CHECK(data.contains("finished"));
    CHECK(data["usage"].contains("cpuUsec"));
    // The same verdict `state` prints.
    Json st = sb.state(id);
    INFO("state: " << st.dump());
    REQUIRE(st["husk"].contains("exit"));
    for (const char* key : {"code", "signal", "reason", "detail"}) {
        INFO(key);
        CHECK(data[key].dump() == st["husk"]["exit"][key].dump());
    }
    CHECK(data["finished"].str() == st["husk"]["finished"].str());
    delete_and_check(sb, id);
}

TEST_CASE("a wall-time limit shows as a timeout event before stopped with reason timeout", "[integration][events]") {
    Sandbox sb;
    Bundle b = with_args(sb, {"/probe", "sleep", "100"});
    std::string id = sb.id("evtimeout");
    require_ok(sb.create(b, id, {"--timeout", "1s", "--kill-grace", "0"}));
    Process watcher = watch(sb, id);
    wait_for_lines(watcher, 1);
    require_ok(sb.husk({"start", id}));

    std::vector<Json> events = finished_stream(watcher, id);
    CHECK(types_of(events) == std::vector<std::string>{"created", "started", "timeout", "stopped"});
    REQUIRE(events.size() == 4);
    // The cause as the monitor recorded it, before it killed.
    CHECK_THAT(events[2]["data"]["detail"].str(), Contains("wall-time limit 1s reached"));
    const Json& data = events[3]["data"];
    CHECK(data["reason"].str() == "timeout");
    CHECK(data["signal"].num() == SIGKILL);
    CHECK(data["code"].num() == 128 + SIGKILL);
    delete_and_check(sb, id);
}

TEST_CASE("events on a running container starts with started; husk kill ends it with stopped, reason killed",
          "[integration][events]") {
    Sandbox sb;
    Bundle b = with_args(sb, {"/probe", "sleep", "100"});
    std::string id = sb.id("evkill");
    require_ok(sb.create(b, id));
    require_ok(sb.husk({"start", id}));
    Process watcher = watch(sb, id);
    wait_for_lines(watcher, 1);
    require_ok(sb.husk({"kill", id, "KILL"}));

    std::vector<Json> events = finished_stream(watcher, id);
    CHECK(types_of(events) == std::vector<std::string>{"started", "stopped"});
    const Json& data = events.back()["data"];
    CHECK(data["reason"].str() == "killed");
    CHECK(data["signal"].num() == SIGKILL);
    CHECK(data["detail"].str() == "killed by SIGKILL sent by husk kill");
    delete_and_check(sb, id);
}

TEST_CASE("a paused container's stream starts with started and ends when it is killed", "[integration][events]") {
    Sandbox sb;
    Bundle b = with_args(sb, {"/probe", "sleep", "100"});
    std::string id = sb.id("evpaused");
    require_ok(sb.create(b, id));
    require_ok(sb.husk({"start", id}));
    require_ok(sb.husk({"pause", id}));
    Process watcher = watch(sb, id);
    wait_for_lines(watcher, 1);
    // cgroup.kill ends frozen processes too (cgroup-v2.rst).
    require_ok(sb.husk({"kill", "--all", id, "KILL"}));
    std::vector<Json> events = finished_stream(watcher, id);
    CHECK(types_of(events) == std::vector<std::string>{"started", "stopped"});
    CHECK(events.back()["data"]["reason"].str() == "killed");
    delete_and_check(sb, id);
}

TEST_CASE("delete --force while events runs is not held up, and the stream ends with stopped",
          "[integration][events]") {
    Sandbox sb;
    Bundle b = with_args(sb, {"/probe", "sleep", "100"});
    std::string id = sb.id("evdelete");
    require_ok(sb.create(b, id));
    require_ok(sb.husk({"start", id}));
    Process watcher = watch(sb, id);
    wait_for_lines(watcher, 1);
    Output deleted = sb.husk({"delete", "--force", id});
    require_ok(deleted);
    CHECK(deleted.elapsed < Ms(5000));

    std::vector<Json> events = finished_stream(watcher, id);
    CHECK(types_of(events) == std::vector<std::string>{"started", "stopped"});
    // delete --force waits for the live monitor's verdict before it removes the record (husk(8) delete), but
    // events reads the record on its own schedule: it saw the verdict in between, or the record was gone.
    const std::string reason = events.back()["data"]["reason"].str();
    const std::string detail = events.back()["data"]["detail"].str();
    INFO(detail);
    CHECK((reason == "killed" || reason == "unknown"));
    if (reason == "killed") CHECK_THAT(detail, Contains("SIGKILL"));
    else CHECK_THAT(detail, Contains("deleted before its exit was recorded"));
    check_nothing_left(sb);
}

TEST_CASE("when the monitor is lost the stream still ends, with the reason state gives: unknown",
          "[integration][events]") {
    Sandbox sb;
    Bundle b = with_args(sb, {"/probe", "sleep", "100"});
    std::string id = sb.id("evlost");
    require_ok(sb.create(b, id));
    require_ok(sb.husk({"start", id}));
    pid_t init = static_cast<pid_t>(sb.state(id)["pid"].num());
    REQUIRE(init > 0);
    sb.track_pid(init);
    Process watcher = watch(sb, id);
    wait_for_lines(watcher, 1);
    pid_t monitor = static_cast<pid_t>(state_record(sb, id)["monitorPid"].num());
    REQUIRE(monitor > 0);
    REQUIRE(::kill(monitor, SIGKILL) == 0);
    reap_if_ours(monitor);
    for (int i = 0; i < 250 && process_alive(monitor); ++i) std::this_thread::sleep_for(Ms(20));
    REQUIRE(::kill(init, SIGKILL) == 0);
    for (int i = 0; i < 250 && process_alive(init); ++i) std::this_thread::sleep_for(Ms(20));
    reap_if_ours(init);

    std::vector<Json> events = finished_stream(watcher, id);
    CHECK(types_of(events) == std::vector<std::string>{"started", "stopped"});
    const Json& data = events.back()["data"];
    CHECK(data["reason"].str() == "unknown");
    CHECK_FALSE(data.contains("code"));
    Json st = sb.state(id);
    CHECK(data["detail"].str() == st["husk"]["exit"]["detail"].str());
    delete_and_check(sb, id);
}

TEST_CASE("the stream keeps runc's stats lines between the transitions", "[integration][events]") {
    Sandbox sb;
    Bundle b = with_args(sb, {"/probe", "sleep", "100"});
    std::string id = sb.id("evstats2");
    require_ok(sb.create(b, id));
    Process watcher = sb.spawn_husk({"events", "--interval", "100ms", id});
    wait_for_lines(watcher, 3);
    require_ok(sb.husk({"start", id}));
    wait_for_lines(watcher, 6);
    require_ok(sb.husk({"kill", id, "KILL"}));

    std::vector<Json> events = finished_stream(watcher, id);
    std::vector<std::string> types = types_of(events);
    CHECK(types.front() == "created");
    CHECK(std::count(types.begin(), types.end(), "started") == 1);
    CHECK(std::count(types.begin(), types.end(), "stats") >= 3);
    CHECK(std::count(types.begin(), types.end(), "stopped") == 1);
    for (const Json& event : events)
        if (event["type"].str() == "stats") CHECK(event["data"].contains("cpu"));
    delete_and_check(sb, id);
}

TEST_CASE("an output flood shows as an output-limit event before stopped with reason output-limit",
          "[integration][events]") {
    Sandbox sb;
    Bundle b = with_args(sb, {"/probe", "spam", "100000000"});
    std::string id = sb.id("evoutput");
    Output created = sb.create(b, id, {"--output-limit", "64KiB"});
    require_ok(created);
    Process watcher = watch(sb, id);
    wait_for_lines(watcher, 1);
    require_ok(sb.husk({"start", id}));

    std::vector<Json> events = finished_stream(watcher, id);
    CHECK(types_of(events) == std::vector<std::string>{"created", "started", "output-limit", "stopped"});
    REQUIRE(events.size() == 4);
    CHECK_THAT(events[2]["data"]["detail"].str(), Contains("output limit 64KiB"));
    const Json& data = events[3]["data"];
    CHECK(data["reason"].str() == "output-limit");
    CHECK(data["signal"].num() == SIGKILL);
    CHECK(data["usage"]["stdoutBytes"].num() == 65536);
    delete_and_check(sb, id);
}

TEST_CASE("a used-up CPU budget shows as a cpu-limit event before stopped with reason cpu-limit",
          "[integration][events]") {
    Sandbox sb;
    Bundle b = with_args(sb, {"/bin/sh", "-c", "while :; do :; done"});
    std::string id = sb.id("evcpu");
    require_ok(sb.create(b, id, {"--cpu-limit", "300ms", "--timeout", "60s"}));
    Process watcher = watch(sb, id);
    wait_for_lines(watcher, 1);
    require_ok(sb.husk({"start", id}));

    std::vector<Json> events = finished_stream(watcher, id);
    CHECK(types_of(events) == std::vector<std::string>{"created", "started", "cpu-limit", "stopped"});
    REQUIRE(events.size() == 4);
    CHECK_THAT(events[2]["data"]["detail"].str(), Contains("CPU budget 300ms"));
    CHECK(events[3]["data"]["reason"].str() == "cpu-limit");
    CHECK(events[3]["data"]["usage"]["cpuUsec"].num() >= 300000);
    delete_and_check(sb, id);
}
