#include "container/verdict.hpp"

#include <catch2/catch.hpp>

using namespace husk;
using namespace husk::container;
using std::chrono::milliseconds;

namespace {

monitor::ExitStatus exited(int code) {
    monitor::ExitStatus s;
    s.known = true;
    s.code = code;
    return s;
}

monitor::ExitStatus signaled(int signal) {
    monitor::ExitStatus s;
    s.known = true;
    s.signal = signal;
    s.code = 128 + signal;
    return s;
}

StopPolicy timeout_policy(milliseconds limit, milliseconds grace = milliseconds(5000)) {
    StopPolicy p;
    p.timeout = limit;
    p.grace = grace;
    return p;
}

}  // namespace

TEST_CASE("durations and signals read the way a user wrote them", "[container]") {
    CHECK(format_duration(milliseconds(2000)) == "2s");
    CHECK(format_duration(milliseconds(500)) == "500ms");
    CHECK(format_duration(milliseconds(1500)) == "1.5s");
    CHECK(format_duration(milliseconds(1050)) == "1.05s");
    CHECK(format_duration(milliseconds(120000)) == "2m");
    CHECK(format_duration(milliseconds(0)) == "0s");
    CHECK(signal_label(SIGTERM) == "SIGTERM");
    CHECK(signal_label(SIGKILL) == "SIGKILL");
    CHECK(signal_label(SIGRTMIN + 3) == "SIGRTMIN+3");
}

TEST_CASE("a normal exit is exited and a signal husk did not send is signaled", "[container]") {
    state::Record record;
    auto e = decide_exit(exited(3), record, StopPolicy{});
    CHECK(e.reason == "exited");
    CHECK(e.code == 3);
    CHECK(e.detail == "exit code 3");
    e = decide_exit(signaled(SIGKILL), record, StopPolicy{});
    CHECK(e.reason == "signaled");
    CHECK(e.signal == SIGKILL);
    CHECK(e.detail == "terminated by SIGKILL (signal 9), which husk did not send");
}

TEST_CASE("a signal husk kill recorded makes the verdict killed, also for a polite exit", "[container]") {
    state::Record record;
    record.kill_requests = {SIGKILL};
    auto e = decide_exit(signaled(SIGKILL), record, StopPolicy{});
    CHECK(e.reason == "killed");
    CHECK(e.detail == "killed by SIGKILL sent by husk kill");
    // Died of a different signal than the one husk sent: someone else did it.
    CHECK(decide_exit(signaled(SIGSEGV), record, StopPolicy{}).reason == "signaled");

    record.kill_requests = {SIGTERM};
    e = decide_exit(exited(0), record, StopPolicy{});
    CHECK(e.reason == "killed");
    CHECK(e.detail == "exited with code 0 after husk kill sent SIGTERM");

    // USR1 is a message, not a request to stop.
    record.kill_requests = {SIGUSR1};
    CHECK(decide_exit(exited(0), record, StopPolicy{}).reason == "exited");
}

TEST_CASE("signals husk run forwarded count as husk's", "[container]") {
    state::Record record;
    auto status = signaled(SIGINT);
    status.enforced.forwarded = std::uint64_t{1} << (SIGINT - 1);
    auto e = decide_exit(status, record, StopPolicy{});
    CHECK(e.reason == "killed");
    CHECK(e.detail == "killed by SIGINT sent by husk run (forwarded)");
}

TEST_CASE("a timeout stays the reason whatever the workload did after the stop signal", "[container]") {
    state::Record record;
    record.kill_requests = {SIGKILL};  // even a later husk kill does not change why it stopped
    StopPolicy policy = timeout_policy(milliseconds(2000));
    auto polite = exited(0);
    polite.enforced.timed_out = true;
    polite.enforced.stop_signal_sent = true;
    auto e = decide_exit(polite, record, policy);
    CHECK(e.reason == "timeout");
    CHECK(e.code == 0);
    CHECK(e.detail == "wall-time limit 2s reached; sent SIGTERM, init ended within the 5s grace");

    auto stubborn = signaled(SIGKILL);
    stubborn.enforced = polite.enforced;
    stubborn.enforced.killed = true;
    CHECK(decide_exit(stubborn, record, policy).detail ==
          "wall-time limit 2s reached; sent SIGTERM, killed after the 5s grace");

    auto at_once = signaled(SIGKILL);
    at_once.enforced.timed_out = true;
    at_once.enforced.killed = true;
    CHECK(decide_exit(at_once, record, timeout_policy(milliseconds(500), milliseconds(0))).detail ==
          "wall-time limit 500ms reached; killed at once (kill-grace 0)");
}

TEST_CASE("a timeout cause recorded earlier is kept, and setup failures win", "[container]") {
    state::Record record;
    record.cause = timeout_cause(timeout_policy(milliseconds(1000), milliseconds(0)));
    CHECK(record.cause->reason == "timeout");
    CHECK(record.cause->detail == "wall-time limit 1s reached; killing at once (kill-grace 0)");
    CHECK(decide_exit(signaled(SIGKILL), record, StopPolicy{}).reason == "timeout");
    CHECK(decide_exit(monitor::ExitStatus{}, record, StopPolicy{}).reason == "timeout");

    auto failed = exited(127);
    failed.exec_error = "exec \"/nope\": no such file or directory";
    CHECK(decide_exit(failed, state::Record{}, StopPolicy{}).reason == "setup-failed");
    CHECK(decide_exit(monitor::ExitStatus{}, state::Record{}, StopPolicy{}).reason == "unknown");
}

TEST_CASE("SIGKILL with a rise of oom_kill is oom; either fact alone is not", "[container]") {
    state::Record record;
    CgroupFacts oom;
    oom.oom_kills = 2;
    oom.memory_max = "33554432";
    auto exit = decide_exit(signaled(SIGKILL), record, StopPolicy{}, oom);
    CHECK(exit.reason == "oom");
    CHECK(exit.detail == "memory.max=33554432 reached (oom_kill +2)");
    CHECK(exit.signal == SIGKILL);

    oom.memory_max = "max";
    CHECK(decide_exit(signaled(SIGKILL), record, StopPolicy{}, oom).detail ==
          "killed by the kernel's OOM killer (oom_kill +2; memory.max=max)");

    // A child was OOM-killed but init exited by itself: the exit is the workload's.
    CHECK(decide_exit(exited(1), record, StopPolicy{}, oom).reason == "exited");
    // SIGKILL without an OOM kill is someone's signal.
    CHECK(decide_exit(signaled(SIGKILL), record, StopPolicy{}, CgroupFacts{}).reason == "signaled");
    // husk kill KILL racing an OOM kill: the kernel's fact wins over the request.
    record.kill_requests = {SIGKILL};
    CHECK(decide_exit(signaled(SIGKILL), record, StopPolicy{}, oom).reason == "oom");
    // A recorded timeout stays the reason.
    record.cause = state::StopCause{"timeout", "wall-time limit 1s reached", "t"};
    CHECK(decide_exit(signaled(SIGKILL), record, timeout_policy(milliseconds(1000)), oom).reason == "timeout");
}
