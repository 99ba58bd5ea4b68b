// The monitor's verdict (docs/ARCHITECTURE.md, "The monitor"): the wall-time limit (run.husk.timeout, kill-grace,
// stop-signal) and the reasons exited / signaled / killed / timeout / unknown, each produced for real and read
// back from `husk state`, in both monitor modes (detached after create, `husk run` in the foreground) and under
// a subreaper caller.
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <thread>

#include "harness.hpp"
#include "monitor_support.hpp"

using namespace husk::test;
using Catch::Matchers::Contains;


TEST_CASE("husk run --timeout 2s ends sleep 100 promptly and state says timeout", "[integration][monitor]") {
    Sandbox sb;
    Bundle b = with_args(sb, {"/bin/sleep", "100"});
    std::string id = sb.id("timeout");
    Output run = sb.run(b, id, {"--keep", "--timeout", "2s"});
    INFO(run.describe());
    // busybox sleep is pid 1 of its pid namespace without a SIGTERM handler, so SIGTERM cannot end it
    // (pid_namespaces(7)): it dies at the end of the default 5 s grace.
    CHECK(run.elapsed >= Ms(6500));
    CHECK(run.elapsed < Ms(15000));
    CHECK(run.exit_code == 128 + SIGKILL);
    Json st = wait_for_exit(sb, id);
    INFO("state: " << st.dump());
    const Json& exit = st["husk"]["exit"];
    CHECK(exit["reason"].str() == "timeout");
    CHECK(exit["signal"].num() == SIGKILL);
    CHECK(exit["code"].num() == 128 + SIGKILL);
    CHECK(exit["detail"].str() == "wall-time limit 2s reached; sent SIGTERM, killed after the 5s grace");
    CHECK(st["annotations"]["run.husk.timeout"].str() == "2s");
    // cpu.stat is a cgroup core file, there even on this hybrid host; memory.peak and pids.peak are not.
    CHECK(st["husk"]["usage"].contains("cpuUsec"));
    CHECK_FALSE(st["husk"]["usage"].contains("memoryPeakBytes"));
    delete_and_check(sb, id);
}

TEST_CASE("a workload that exits 0 on the stop signal still stopped because of the timeout, and run exits 124",
          "[integration][monitor]") {
    Sandbox sb;
    std::string mode = GENERATE(std::string("run"), std::string("create"));
    Bundle b = with_args(sb, {"/bin/sh", "-c", "trap 'exit 0' TERM; echo ready; while :; do sleep 0.05; done"});
    std::string id = sb.id("polite");
    if (mode == "run") {
        Output run = sb.run(b, id, {"--keep", "--timeout", "1s"});
        INFO(run.describe());
        // A limit fired, so never 0; the workload ended itself, so not 128 + N either: timeout(1)'s 124.
        CHECK(run.exit_code == 124);
    } else {
        create_and_start(sb, b, id, {"--timeout", "1s"});
    }
    Json st = wait_for_exit(sb, id);
    INFO(mode << " state: " << st.dump());
    const Json& exit = st["husk"]["exit"];
    CHECK(exit["reason"].str() == "timeout");
    CHECK(exit["code"].num() == 0);  // as the kernel reported it
    CHECK(exit["signal"].num() == 0);
    CHECK((exit.contains("exitedAfterLimit") && exit["exitedAfterLimit"].boolean()));
    CHECK(exit["detail"].str() == "wall-time limit 1s reached; sent SIGTERM, init ended within the 5s grace; "
                                  "the workload exited on its own with code 0 after the limit fired");
    // The cause was recorded before the signal, and kept.
    Json record = state_record(sb, id);
    REQUIRE(record.contains("cause"));
    CHECK(record["cause"]["reason"].str() == "timeout");
    delete_and_check(sb, id);
}

TEST_CASE("a workload that ignores the stop signal is killed when the grace is over", "[integration][monitor]") {
    Sandbox sb;
    Bundle b = with_args(sb, {"/probe", "ignore-term", "sleep", "100"});
    std::string id = sb.id("stubborn");
    Output run = sb.run(b, id, {"--keep", "--timeout", "1s", "--kill-grace", "1500ms"});
    INFO(run.describe());
    CHECK(run.elapsed >= Ms(2400));
    CHECK(run.elapsed < Ms(8000));
    CHECK(run.exit_code == 128 + SIGKILL);
    Json st = wait_for_exit(sb, id);
    INFO("state: " << st.dump());
    CHECK(st["husk"]["exit"]["reason"].str() == "timeout");
    CHECK(st["husk"]["exit"]["signal"].num() == SIGKILL);
    CHECK(st["husk"]["exit"]["detail"].str() == "wall-time limit 1s reached; sent SIGTERM, killed after the 1.5s grace");
    delete_and_check(sb, id);
}

TEST_CASE("kill-grace 0 kills at once without a stop signal", "[integration][monitor]") {
    Sandbox sb;
    // The probe exits 143 on SIGTERM: a SIGKILL death shows no stop signal came first.
    Bundle b = with_args(sb, {"/probe", "sleep", "100"});
    std::string id = sb.id("grace0");
    Output run = sb.run(b, id, {"--keep", "--timeout", "500ms", "--kill-grace", "0"});
    INFO(run.describe());
    CHECK(run.elapsed >= Ms(450));
    CHECK(run.elapsed < Ms(4000));
    CHECK(run.exit_code == 128 + SIGKILL);
    Json st = wait_for_exit(sb, id);
    INFO("state: " << st.dump());
    CHECK(st["husk"]["exit"]["reason"].str() == "timeout");
    CHECK(st["husk"]["exit"]["signal"].num() == SIGKILL);
    CHECK(st["husk"]["exit"]["detail"].str() == "wall-time limit 500ms reached; killed at once (kill-grace 0)");
    delete_and_check(sb, id);
}

TEST_CASE("a custom stop signal is what the workload receives at the deadline", "[integration][monitor]") {
    Sandbox sb;
    // The probe's handler exits with code 128 + signal on INT; the config's annotation asks for INT.
    Bundle b = with_args(sb, {"/probe", "sleep", "100"});
    b.config["annotations"] = Json::object({{"run.husk.timeout", "700ms"}, {"run.husk.stop-signal", "SIGINT"}});
    std::string id = sb.id("stopsig");
    Output run = sb.run(b, id, {"--keep"});
    INFO(run.describe());
    // It exited by itself (exit(130) in the handler, not killed by the signal): timeout's 124, like timeout(1).
    CHECK(run.exit_code == 124);
    Json st = wait_for_exit(sb, id);
    INFO("state: " << st.dump());
    CHECK(st["husk"]["exit"]["reason"].str() == "timeout");
    CHECK(st["husk"]["exit"]["code"].num() == 128 + SIGINT);
    CHECK(st["husk"]["exit"]["signal"].num() == 0);
    CHECK(st["husk"]["exit"]["detail"].str() == "wall-time limit 700ms reached; sent SIGINT, init ended within the 5s "
                                                "grace; the workload exited on its own with code 130 after the limit fired");
    delete_and_check(sb, id);
}

TEST_CASE("the wall-time limit counts from start, not from create", "[integration][monitor]") {
    Sandbox sb;
    Bundle b = with_args(sb, {"/probe", "sleep", "100"});
    std::string id = sb.id("fromstart");
    Output created = sb.create(b, id, {"--timeout", "1s", "--kill-grace", "0"});
    require_ok(created);
    std::this_thread::sleep_for(Ms(1500));
    CHECK(sb.state(id)["status"].str() == "created");
    auto started_at = std::chrono::steady_clock::now();
    require_ok(sb.husk({"start", id}));
    CHECK(wait_for_output(created, "sleeping"));
    // Still running while well inside the 1 s counted from start; on a loaded machine (or under ASan) start,
    // the output and `state` may themselves take most of that second, and then there is nothing to check.
    auto since_start = [&] { return std::chrono::steady_clock::now() - started_at; };
    std::string status = sb.state(id)["status"].str();
    if (since_start() < Ms(700)) CHECK(status == "running");
    Json st = wait_for_exit(sb, id);
    auto lived = std::chrono::steady_clock::now() - started_at;
    INFO("state: " << st.dump());
    CHECK(lived >= Ms(950));
    CHECK(st["husk"]["exit"]["reason"].str() == "timeout");
    delete_and_check(sb, id);
}

TEST_CASE("without a cgroup the deadline's kill is SIGKILL to init", "[integration][monitor]") {
    Sandbox sb;
    Bundle b = with_args(sb, {"/probe", "ignore-term", "sleep", "100"});
    b.config["linux"].erase("resources");  // runc's default device list needs a cgroup
    b.write();
    std::string id = sb.id("nocgroup");
    Output run = sb.husk({"--cgroup-manager", "disabled", "run", "--bundle", b.dir, "--keep", "--timeout", "500ms",
                          "--kill-grace", "500ms", id});
    INFO(run.describe());
    CHECK(run.exit_code == 128 + SIGKILL);
    CHECK(run.elapsed < Ms(5000));
    Json st = wait_for_exit(sb, id);
    INFO("state: " << st.dump());
    CHECK_FALSE(st["husk"].contains("cgroupPath"));
    CHECK(st["husk"]["exit"]["reason"].str() == "timeout");
    CHECK(st["husk"]["exit"]["signal"].num() == SIGKILL);
    delete_and_check(sb, id);
}

TEST_CASE("a flag wins over the same annotation in config.json", "[integration][monitor]") {
    Sandbox sb;
    Bundle b = with_args(sb, {"/probe", "sleep", "100"});
    b.config["annotations"] = Json::object({{"run.husk.timeout", "100s"}});
    std::string id = sb.id("flagwins");
    Output run = sb.run(b, id, {"--keep", "--timeout", "500ms"});
    INFO(run.describe());
    CHECK(run.elapsed < Ms(5000));
    Json st = wait_for_exit(sb, id);
    CHECK(st["annotations"]["run.husk.timeout"].str() == "500ms");
    CHECK(st["husk"]["exit"]["reason"].str() == "timeout");
    delete_and_check(sb, id);
}

TEST_CASE("husk kill KILL makes the reason killed", "[integration][monitor]") {
    Sandbox sb;
    Bundle b = with_args(sb, {"/probe", "sleep", "100"});
    std::string id = sb.id("killed");
    create_and_start(sb, b, id);
    require_ok(sb.husk({"kill", id, "KILL"}));
    Json st = wait_for_exit(sb, id);
    INFO("state: " << st.dump());
    CHECK(st["husk"]["exit"]["reason"].str() == "killed");
    CHECK(st["husk"]["exit"]["signal"].num() == SIGKILL);
    CHECK(st["husk"]["exit"]["code"].num() == 128 + SIGKILL);
    CHECK(st["husk"]["exit"]["detail"].str() == "killed by SIGKILL sent by husk kill");
    delete_and_check(sb, id);
}

TEST_CASE("a workload that exits on husk kill's SIGTERM was killed, even with exit code 0",
          "[integration][monitor]") {
    Sandbox sb;
    Bundle b = with_args(sb, {"/bin/sh", "-c", "trap 'exit 0' TERM; echo ready; while :; do sleep 0.05; done"});
    std::string id = sb.id("politekill");
    Output created = sb.create(b, id);
    require_ok(created);
    require_ok(sb.husk({"start", id}));
    REQUIRE(wait_for_output(created, "ready"));
    require_ok(sb.husk({"kill", id}));
    Json st = wait_for_exit(sb, id);
    INFO("state: " << st.dump());
    CHECK(st["husk"]["exit"]["reason"].str() == "killed");
    CHECK(st["husk"]["exit"]["code"].num() == 0);
    CHECK(st["husk"]["exit"]["detail"].str() == "exited with code 0 after husk kill sent SIGTERM");
    delete_and_check(sb, id);
}

TEST_CASE("a workload that ignores husk kill's USR1 and then exits by itself has exited",
          "[integration][monitor]") {
    Sandbox sb;
    Bundle b = with_args(sb, {"/bin/sh", "-c", "trap '' USR1; echo ready; until [ -e /go ]; do sleep 0.05; done; exit 4"});
    std::string id = sb.id("usr1");
    Output created = sb.create(b, id);
    require_ok(created);
    require_ok(sb.husk({"start", id}));
    REQUIRE(wait_for_output(created, "ready"));
    require_ok(sb.husk({"kill", id, "USR1"}));
    std::this_thread::sleep_for(Ms(200));
    CHECK(sb.state(id)["status"].str() == "running");
    write_file(b.rootfs() + "/go", "");
    Json st = wait_for_exit(sb, id);
    INFO("state: " << st.dump());
    CHECK(st["husk"]["exit"]["reason"].str() == "exited");
    CHECK(st["husk"]["exit"]["code"].num() == 4);
    CHECK(st["husk"]["exit"]["detail"].str() == "exit code 4");
    delete_and_check(sb, id);
}

TEST_CASE("a signal someone else sends makes the reason signaled, not killed", "[integration][monitor]") {
    Sandbox sb;
    Bundle b = with_args(sb, {"/probe", "sleep", "100"});
    std::string id = sb.id("signaled");
    pid_t init = create_and_start(sb, b, id);
    REQUIRE(::kill(init, SIGKILL) == 0);
    Json st = wait_for_exit(sb, id);
    INFO("state: " << st.dump());
    CHECK(st["husk"]["exit"]["reason"].str() == "signaled");
    CHECK(st["husk"]["exit"]["signal"].num() == SIGKILL);
    CHECK(st["husk"]["exit"]["code"].num() == 128 + SIGKILL);
    CHECK_THAT(st["husk"]["exit"]["detail"].str(), Contains("which husk did not send"));
    delete_and_check(sb, id);
}

TEST_CASE("with the monitor killed, state says stopped and the reason unknown once init dies",
          "[integration][monitor]") {
    Sandbox sb;
    Bundle b = with_args(sb, {"/probe", "sleep", "100"});
    std::string id = sb.id("lost");
    pid_t init = create_and_start(sb, b, id);
    pid_t monitor = static_cast<pid_t>(state_record(sb, id)["monitorPid"].num());
    REQUIRE(monitor > 0);
    REQUIRE(::kill(monitor, SIGKILL) == 0);
    reap_if_ours(monitor);
    for (int i = 0; i < 250 && process_alive(monitor); ++i) std::this_thread::sleep_for(Ms(20));
    CHECK(sb.state(id)["status"].str() == "running");
    REQUIRE(::kill(init, SIGKILL) == 0);
    for (int i = 0; i < 250 && process_alive(init); ++i) std::this_thread::sleep_for(Ms(20));
    reap_if_ours(init);
    Json st = sb.wait_for_status(id, "stopped");
    INFO("state: " << st.dump());
    CHECK(st["pid"].num() == 0);
    REQUIRE(st["husk"].contains("exit"));
    CHECK(st["husk"]["exit"]["reason"].str() == "unknown");
    CHECK_FALSE(st["husk"]["exit"].contains("code"));
    delete_and_check(sb, id);
}

TEST_CASE("a timeout recorded before the monitor was lost is still the reason", "[integration][monitor]") {
    Sandbox sb;
    Bundle b = with_args(sb, {"/probe", "ignore-term", "sleep", "100"});
    std::string id = sb.id("lostcause");
    pid_t init = create_and_start(sb, b, id, {"--timeout", "500ms", "--kill-grace", "60s"});
    // The cause is written before SIGTERM; the probe ignores it, so the container lives on in its grace.
    for (int i = 0; i < 250 && !state_record(sb, id).contains("cause"); ++i) std::this_thread::sleep_for(Ms(20));
    REQUIRE(state_record(sb, id).contains("cause"));
    pid_t monitor = static_cast<pid_t>(state_record(sb, id)["monitorPid"].num());
    REQUIRE(::kill(monitor, SIGKILL) == 0);
    reap_if_ours(monitor);
    REQUIRE(::kill(init, SIGKILL) == 0);
    for (int i = 0; i < 250 && process_alive(init); ++i) std::this_thread::sleep_for(Ms(20));
    reap_if_ours(init);
    Json st = sb.wait_for_status(id, "stopped");
    INFO("state: " << st.dump());
    REQUIRE(st["husk"].contains("exit"));
    CHECK(st["husk"]["exit"]["reason"].str() == "timeout");
    CHECK_THAT(st["husk"]["exit"]["detail"].str(), Contains("wall-time limit 500ms reached"));
    CHECK_THAT(st["husk"]["exit"]["detail"].str(), Contains("the monitor was lost"));
    delete_and_check(sb, id);
}

TEST_CASE("malformed limit flags and annotations are clear errors that leave nothing behind",
          "[integration][monitor]") {
    struct Case {
        std::vector<std::string> flags;
        std::vector<std::pair<std::string, std::string>> annotations;
        std::string message;
        int exit_code;
    };
    Case c = GENERATE(values<Case>({
        {{"--timeout", "soon"}, {}, "--timeout: invalid duration \"soon\"", 2},
        {{"--timeout", "0"}, {}, "--timeout: must be greater than 0", 2},
        {{"--timeout", "-1s"}, {}, "--timeout: invalid duration \"-1s\"", 2},
        {{"--kill-grace", "5"}, {}, "--kill-grace: invalid duration \"5\"", 2},
        {{"--stop-signal", "NOPE"}, {}, "--stop-signal: unknown signal \"NOPE\"", 2},
        {{}, {{"run.husk.timeout", "0"}}, "annotations[\"run.husk.timeout\"]: must be greater than 0", 1},
        {{}, {{"run.husk.kill-grace", "fast"}}, "annotations[\"run.husk.kill-grace\"]: invalid duration \"fast\"", 1},
        {{}, {{"run.husk.stop-signal", "SIGBOGUS"}}, "annotations[\"run.husk.stop-signal\"]: unknown signal", 1},
        {{"--output-limit", "0"}, {}, "--output-limit: must be greater than 0", 2},
        {{"--output-limit", "lots"}, {}, "--output-limit: size \"lots\": not a number", 2},
        {{"--output-limit", "0.1k"}, {}, "--output-limit: size \"0.1k\": not a whole number of bytes", 2},
        {{}, {{"run.husk.output-limit", "-1k"}}, "annotations[\"run.husk.output-limit\"]: size \"-1k\": must not be negative", 1},
        {{"--cpu-limit", "-2s"}, {}, "--cpu-limit: invalid duration \"-2s\"", 2},
        {{}, {{"run.husk.output-limit", "0"}}, "annotations[\"run.husk.output-limit\"]: must be greater than 0", 1},
        {{}, {{"run.husk.cpu-limit", "0"}}, "annotations[\"run.husk.cpu-limit\"]: must be greater than 0", 1},
        {{}, {{"run.husk.cpu-budget", "1s"}}, "annotations[\"run.husk.cpu-budget\"]: unknown husk annotation", 1},
    }));
    std::string verb = GENERATE(std::string("create"), std::string("run"));
    Sandbox sb;
    Bundle b = with_args(sb, {"/probe", "sleep", "100"});
    if (!c.annotations.empty()) {
        b.config["annotations"] = Json::object();
        for (const auto& [key, value] : c.annotations) b.config["annotations"][key] = value;
    }
    std::string id = sb.id("bad");
    Output out = verb == "create" ? sb.create(b, id, c.flags) : sb.run(b, id, c.flags);
    INFO(verb << ": " << out.describe());
    // A run refuses what create fails with: exit 2 (husk(8), EXIT STATUS).
    CHECK(out.exit_code == (verb == "run" ? 2 : c.exit_code));
    CHECK_THAT(out.err, Contains(c.message));
    CHECK(sb.husk({"state", id}).exit_code == 1);
    check_nothing_left(sb);
}

TEST_CASE("under a subreaper caller, a timed-out init is still reaped by the caller and state says timeout",
          "[integration][monitor][subreaper]") {
    Sandbox sb;
    Bundle b = with_args(sb, {"/probe", "sleep", "100"});
    b.config["annotations"] = Json::object({{"run.husk.timeout", "1s"}});
    std::string id = sb.id("subtimeout");
    b.write();
    Process caller = sb.spawn_command(
        {paths().subreaper_caller, paths().husk, sb.root(), b.dir, sb.dir() + "/" + id + ".pid", id});
    pid_t caller_pid = caller.pid();
    Output out = caller.wait();
    INFO("subreaper-caller: " << out.describe());
    REQUIRE(out.exit_code == 0);
    Json created, result;
    for (const std::string& line : lines(out.out)) {
        if (line.front() != '{') continue;
        Json json = Json::parse(line);
        if (json.contains("created")) created = json;
        else if (json.contains("exited") || json.contains("error")) result = json;
    }
    REQUIRE(result.contains("pid"));
    CHECK(result["pid"].num() == created["created"].num());
    CHECK(created["ppid"].num() == caller_pid);  // CLONE_PARENT: init was born the caller's child
    // The probe exits 128 + SIGTERM on the stop signal, and the caller saw exactly that.
    CHECK(result["exited"].boolean());
    CHECK(result["code"].num() == 128 + SIGTERM);
    Json st = wait_for_exit(sb, id);
    INFO("state: " << st.dump());
    CHECK(st["husk"]["exit"]["reason"].str() == "timeout");
    CHECK(st["husk"]["exit"]["code"].num() == 128 + SIGTERM);
    delete_and_check(sb, id);
}

TEST_CASE("a fork loop under a timeout is ended entirely by the kill, even outside a pid namespace",
          "[integration][monitor]") {
    Sandbox sb;
    // Without a pid namespace init's death does not take the others along: only cgroup.kill can.
    Bundle b = with_args(sb, {"/bin/sh", "-c", "while :; do /bin/sleep 100 & done"});
    share_host_pid_namespace(b.config);
    std::string id = sb.id("forkloop");
    Output run = sb.run(b, id, {"--keep", "--timeout", "1s", "--kill-grace", "0"});
    INFO(run.describe());
    CHECK(run.exit_code == 128 + SIGKILL);
    Json st = wait_for_exit(sb, id);
    INFO("state: " << st.dump());
    CHECK(st["husk"]["exit"]["reason"].str() == "timeout");
    CHECK(st["husk"]["exit"]["detail"].str() == "wall-time limit 1s reached; killed at once (kill-grace 0)");
    // Every process the loop made is gone (check_nothing_left looks for the sandbox's marker).
    delete_and_check(sb, id);
}

TEST_CASE("delete --force racing the monitor's final write leaves nothing behind", "[integration][monitor]") {
    Sandbox sb;
    Bundle b = with_args(sb, {"/bin/sh", "-c", "exit 3"});
    for (int i = 0; i < 10; ++i) {
        std::string id = sb.id("race" + std::to_string(i));
        require_ok(sb.create(b, id));
        require_ok(sb.husk({"start", id}));
        // The container exits at once: delete meets the monitor before, during or after its verdict.
        Output deleted = sb.husk({"delete", "--force", id});
        INFO(deleted.describe());
        CHECK(deleted.exit_code == 0);
        CHECK(sb.husk({"state", id}).exit_code == 1);
    }
    check_nothing_left(sb);
}
