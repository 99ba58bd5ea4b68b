// run.husk.init=true: pid 1 is husk-init, run from a sealed memfd, with process.args as its child
// (src/init/husk_init.cpp): exit status mirrored, signals forwarded, orphans reaped, no writable binary.
#include <catch2/catch.hpp>

#include <csignal>
#include <string>
#include <vector>

#include "harness.hpp"
#include "monitor_support.hpp"

using namespace husk::test;

namespace {

Bundle with_init(Sandbox& sb, std::vector<std::string> args) {
    Bundle b = with_args(sb, std::move(args));
    b.config["annotations"]["run.husk.init"] = "true";
    return b;
}

}  // namespace

TEST_CASE("with run.husk.init the container's status is the program's, or 128 + the signal that ended it",
          "[integration][init]") {
    Sandbox sb;
    Bundle exits = with_init(sb, {"/probe", "exit", "7"});
    Output run = sb.run(exits, sb.id("exit7"));
    INFO(run.describe());
    CHECK(run.exit_code == 7);
    // The program kills itself with SIGTERM: as pid 1 it could not (its own signals are ignored there).
    Bundle signaled = with_init(sb, {"/probe", "signal-self", std::to_string(SIGTERM)});
    run = sb.run(signaled, sb.id("term"));
    INFO(run.describe());
    CHECK(run.exit_code == 128 + SIGTERM);
}

TEST_CASE("with run.husk.init the record says how the program ended: exited with its code, or killed by its signal",
          "[integration][init][verdict]") {
    Sandbox sb;
    struct Case {
        std::string name;
        std::vector<std::string> args;
        int code, signal;
        std::string reason;
    };
    // `exit 137` and death by SIGKILL both leave husk-init exiting 137: only its report tells them apart.
    const std::vector<Case> cases = {
        {"exit7", {"/probe", "exit", "7"}, 7, 0, "exited"},
        {"exit137", {"/bin/sh", "-c", "exit 137"}, 128 + SIGKILL, 0, "exited"},
        {"kill", {"/probe", "signal-self", std::to_string(SIGKILL)}, 128 + SIGKILL, SIGKILL, "signaled"},
        {"segv", {"/probe", "signal-self", std::to_string(SIGSEGV)}, 128 + SIGSEGV, SIGSEGV, "signaled"},
    };
    for (const Case& c : cases) {
        INFO(c.name);
        Bundle b = with_init(sb, c.args);
        b.config["process"]["rlimits"] = Json::parse(R"([{"type": "RLIMIT_CORE", "hard": 0, "soft": 0}])");
        std::string id = sb.id(c.name), verdict = sb.dir() + "/" + c.name + ".json";
        Output run = sb.run(b, id, {"--keep", "--verdict", verdict});
        INFO(run.describe());
        CHECK(run.exit_code == c.code);
        Json st = sb.state(id);
        INFO(st.dump());
        CHECK(st["husk"]["exit"]["code"].num() == c.code);
        CHECK(st["husk"]["exit"]["signal"].num() == c.signal);
        CHECK(st["husk"]["exit"]["reason"].str() == c.reason);
        Json v = Json::parse(read_file(verdict));
        INFO(v.dump());
        CHECK(v["exit"]["code"].num() == c.code);
        CHECK(v["exit"]["signal"].num() == c.signal);
        CHECK(v["exit"]["reason"].str() == c.reason);
        if (c.signal != 0)
            CHECK(v["exit"]["detail"].str().find("as husk-init reported it") != std::string::npos);
        require_ok(sb.husk({"delete", id}));
    }
}

TEST_CASE("with run.husk.init the program runs as pid 1's child and orphans are reaped", "[integration][init]") {
    Sandbox sb;
    // Each inner shell leaves a sleep behind that is reparented to pid 1 and ends 0.1 s later; then count the
    // zombies in the pid namespace (busybox ps is not needed: /proc/PID/status says "State: Z").
    const std::string script =
        "echo parent $PPID; for i in 1 2 3 4 5; do sh -c 'sleep 0.1 &'; done; sleep 1; "
        "zombies=0; for s in /proc/[0-9]*/status; do "
        "  while read -r k v rest; do [ \"$k\" = State: ] && [ \"$v\" = Z ] && zombies=$((zombies+1)); done < $s; "
        "done; echo zombies $zombies";
    Bundle b = with_init(sb, {"/bin/sh", "-c", script});
    Output run = sb.run(b, sb.id("reap"));
    INFO(run.describe());
    REQUIRE(run.exit_code == 0);
    CHECK(lines(run.out) == std::vector<std::string>{"parent 1", "zombies 0"});
}

TEST_CASE("with run.husk.init SIGTERM from husk kill reaches a program that has no handler for it",
          "[integration][init]") {
    Sandbox sb;
    // As pid 1 busybox sleep would ignore SIGTERM (no handler, pid_namespaces(7)); as init's child it dies.
    Bundle b = with_init(sb, {"/bin/sleep", "60"});
    std::string id = sb.id("term");
    create_and_start(sb, b, id);
    require_ok(sb.husk({"kill", id, "TERM"}));
    Json st = wait_for_exit(sb, id);
    INFO(st.dump());
    CHECK(st["husk"]["exit"]["code"].num() == 128 + SIGTERM);
    // The program died of it, and the signal was husk kill's.
    CHECK(st["husk"]["exit"]["signal"].num() == SIGTERM);
    CHECK(st["husk"]["exit"]["reason"].str() == "killed");
    require_ok(sb.husk({"delete", id}));
}

TEST_CASE("with run.husk.init the container cannot open its init's binary for writing (CVE-2019-5736)",
          "[integration][init][cve]") {
    Sandbox sb;
    Bundle b = with_init(sb, {"/probe", "exe-of-parent"});
    Output run = sb.run(b, sb.id("exe"));
    INFO(run.describe());
    REQUIRE(run.exit_code == 0);
    Json r = last_json_line(run.out);
    INFO(r.dump());
    CHECK(r["path"].str() == "/proc/1/exe");
    CHECK(r["writeErrno"].num() != 0);
    // It is the sealed memfd, no file of the host; executed without read permission, so the kernel made it
    // non-dumpable: a container without CAP_SYS_PTRACE cannot even follow /proc/1/exe (nor /proc/1/fd or mem).
    Bundle link = with_init(sb, {"/bin/sh", "-c", "grep '^Name:' /proc/1/status; readlink /proc/1/exe || echo denied"});
    run = sb.run(link, sb.id("link"));
    INFO(run.describe());
    CHECK(lines(run.out) == std::vector<std::string>{"Name:\tmemfd:husk-init", "denied"});
}

TEST_CASE("run.husk.init takes true or false", "[integration][init]") {
    Sandbox sb;
    Bundle b = with_args(sb, {"/probe", "exit", "0"});
    b.config["annotations"]["run.husk.init"] = "yes";
    Output run = sb.run(b, sb.id("bad"));
    CHECK(run.exit_code != 0);
    CHECK(run.err.find("annotations[\"run.husk.init\"]: want \"true\" or \"false\"") != std::string::npos);
}
