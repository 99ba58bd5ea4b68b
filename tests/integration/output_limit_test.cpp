// The output cap (run.husk.output-limit, DESIGN.md §3-4): the monitor pumps stdout and stderr, delivers
// exactly up to the cap, kills at the first byte past it (reason output-limit), drains the tail after exit,
// and counts both streams in husk.usage. Bytes are checked in the files husk's stdio pointed to.
#include <catch2/catch.hpp>

#include <signal.h>

#include "harness.hpp"
#include "monitor_support.hpp"

using namespace husk::test;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

namespace {

// busybox sh: N numbered lines on stdout and on stderr, interleaved.
std::vector<std::string> numbered_lines(int count) {
    return {"/bin/sh", "-c",
            "i=0; while [ $i -lt " + std::to_string(count) + " ]; do echo out$i; echo err$i >&2; i=$((i+1)); done"};
}

bool numbered_in_order(const std::string& text, const std::string& prefix, int count) {
    std::vector<std::string> got = lines(text);
    if (static_cast<int>(got.size()) != count) return false;
    for (int i = 0; i < count; ++i)
        if (got[i] != prefix + std::to_string(i)) return false;
    return true;
}

const Json& usage(const Json& st) { return st["husk"]["usage"]; }

}  // namespace

TEST_CASE("an output flood is cut at exactly the cap, killed, and state says output-limit",
          "[integration][monitor][output]") {
    Sandbox sb;
    std::string mode = GENERATE(std::string("run"), std::string("create"));
    Bundle b = with_args(sb, {"/probe", "spam", "100000000"});
    std::string id = sb.id("flood");
    Output out;
    if (mode == "run") {
        out = sb.run(b, id, {"--keep", "--output-limit", "64KiB"});
        INFO(out.describe());
        CHECK(out.exit_code == 128 + SIGKILL);
    } else {
        out = sb.create(b, id, {"--output-limit", "64KiB"});
        require_ok(out);
        require_ok(sb.husk({"start", id}));
    }
    Json st = wait_for_exit(sb, id);
    INFO(mode << " state: " << st.dump());
    CHECK(out.current_out().size() == 65536);
    CHECK(out.current_out() == std::string(65536, 'x'));
    const Json& exit = st["husk"]["exit"];
    CHECK(exit["reason"].str() == "output-limit");
    CHECK(exit["signal"].num() == SIGKILL);
    CHECK(exit["detail"].str() ==
          "stdout+stderr went past the output limit 64KiB (65536 bytes); delivered up to the limit, killing the container");
    CHECK(usage(st)["stdoutBytes"].num() == 65536);
    CHECK(usage(st)["stderrBytes"].num() == 0);
    delete_and_check(sb, id);
}

TEST_CASE("below the cap both streams arrive whole and in order, and husk.usage counts each",
          "[integration][monitor][output]") {
    Sandbox sb;
    Bundle b = with_args(sb, numbered_lines(500));
    std::string id = sb.id("lines");
    Output run = sb.run(b, id, {"--keep", "--output-limit", "1MiB"});
    INFO(run.describe());
    CHECK(run.exit_code == 0);
    CHECK(numbered_in_order(run.out, "out", 500));
    CHECK(numbered_in_order(run.err, "err", 500));
    Json st = wait_for_exit(sb, id);
    CHECK(st["husk"]["exit"]["reason"].str() == "exited");
    CHECK(usage(st)["stdoutBytes"].num() == static_cast<double>(run.out.size()));
    CHECK(usage(st)["stderrBytes"].num() == static_cast<double>(run.err.size()));
    delete_and_check(sb, id);
}

TEST_CASE("output exactly at the cap is within the limit", "[integration][monitor][output]") {
    Sandbox sb;
    Bundle b = with_args(sb, {"/probe", "spam", "4096"});
    std::string id = sb.id("exact");
    Output run = sb.run(b, id, {"--keep", "--output-limit", "4096"});
    INFO(run.describe());
    CHECK(run.exit_code == 0);
    CHECK(run.out.size() == 4096);
    Json st = wait_for_exit(sb, id);
    CHECK(st["husk"]["exit"]["reason"].str() == "exited");
    CHECK(usage(st)["stdoutBytes"].num() == 4096);
    delete_and_check(sb, id);
}

TEST_CASE("stdout and stderr share one cap", "[integration][monitor][output]") {
    Sandbox sb;
    Bundle b = with_args(sb, {"/bin/sh", "-c", "/probe spam 3000 >&2; /probe spam 3000; sleep 100"});
    std::string id = sb.id("shared");
    Output run = sb.run(b, id, {"--keep", "--output-limit", "5000"});
    INFO(run.describe());
    CHECK(run.exit_code == 128 + SIGKILL);
    CHECK(run.err.size() == 3000);
    CHECK(run.out.size() == 2000);
    Json st = wait_for_exit(sb, id);
    CHECK(st["husk"]["exit"]["reason"].str() == "output-limit");
    CHECK(usage(st)["stdoutBytes"].num() == 2000);
    CHECK(usage(st)["stderrBytes"].num() == 3000);
    delete_and_check(sb, id);
}

TEST_CASE("the tail written just before exit is drained, not lost", "[integration][monitor][output]") {
    Sandbox sb;
    // More than a pipe holds, written as fast as possible by a process that exits right after.
    Bundle b = with_args(sb, {"/probe", "spam", "300000"});
    std::string id = sb.id("tail");
    Output created = sb.create(b, id, {"--output-limit", "10MB"});
    require_ok(created);
    require_ok(sb.husk({"start", id}));
    Json st = wait_for_exit(sb, id);
    CHECK(created.current_out().size() == 300000);
    CHECK(st["husk"]["exit"]["reason"].str() == "exited");
    CHECK(usage(st)["stdoutBytes"].num() == 300000);
    delete_and_check(sb, id);
}

TEST_CASE("a container that closes its stdout early keeps its stderr", "[integration][monitor][output]") {
    Sandbox sb;
    Bundle b = with_args(sb, {"/bin/sh", "-c", "echo first; exec 1>&-; echo second >&2; sleep 0.2; echo third >&2"});
    std::string id = sb.id("closed");
    Output run = sb.run(b, id, {"--keep", "--output-limit", "1KiB"});
    INFO(run.describe());
    CHECK(run.exit_code == 0);
    CHECK(run.out == "first\n");
    CHECK(run.err == "second\nthird\n");
    Json st = wait_for_exit(sb, id);
    CHECK(st["husk"]["exit"]["reason"].str() == "exited");
    delete_and_check(sb, id);
}

TEST_CASE("a slow reader slows the container down and loses nothing", "[integration][monitor][output]") {
    Sandbox sb;
    Bundle b = with_args(sb, {"/probe", "spam", "2000000"});
    std::string id = sb.id("slow");
    b.write();
    // The reader starts a second late: the pipes fill and the container waits for it.
    std::string husk = paths().husk + " --root " + sb.root() + " run --bundle " + b.dir + " --output-limit 10MB " + id;
    Output out = sb.command({"/bin/sh", "-c", husk + " | (sleep 1; wc -c)"});
    INFO(out.describe());
    CHECK(out.exit_code == 0);
    CHECK(lines(out.out) == std::vector<std::string>{"2000000"});
    check_nothing_left(sb);
}

TEST_CASE("a reader that goes away ends the container's writes as without a cap", "[integration][monitor][output]") {
    Sandbox sb;
    Bundle b = with_args(sb, {"/probe", "spam", "100000000"});
    std::string id = sb.id("gone");
    b.write();
    std::string husk = paths().husk + " --root " + sb.root() + " run --keep --bundle " + b.dir + " --output-limit 1GB " + id;
    Output out = sb.command({"/bin/sh", "-c", husk + " | head -c 1000 >/dev/null"});
    INFO(out.describe());
    CHECK(out.exit_code == 0);
    Json st = wait_for_exit(sb, id);
    INFO("state: " << st.dump());
    // The probe's write failed (EPIPE, or SIGPIPE): the container ended by itself, not by husk.
    CHECK((st["husk"]["exit"]["reason"].str() == "exited" || st["husk"]["exit"]["reason"].str() == "signaled"));
    CHECK(usage(st)["stdoutBytes"].num() >= 1000);
    delete_and_check(sb, id);
}

TEST_CASE("an output cap with a terminal is refused and leaves nothing behind", "[integration][monitor][output]") {
    Sandbox sb;
    Bundle b = with_args(sb, {"/bin/true"});
    b.config["process"]["terminal"] = true;
    std::string id = sb.id("tty");
    Output out = sb.create(b, id, {"--output-limit", "1KiB", "--console-socket", sb.root() + "/none.sock"});
    INFO(out.describe());
    CHECK(out.exit_code == 1);
    CHECK_THAT(out.err, Contains("annotations[\"run.husk.output-limit\"]: cannot be enforced with process.terminal"));
    check_nothing_left(sb);
}
