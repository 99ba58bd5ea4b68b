#include "monitor/verdict.hpp"

#include "monitor/cpu_limit.hpp"
#include "monitor/output_limit.hpp"
#include "monitor/timeout.hpp"

#include <catch2/catch.hpp>

using namespace husk;
using namespace husk::monitor;
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
    // SIGXFSZ says what it is sent for, and stays signaled: kill(2) can send it too.
    e = decide_exit(signaled(SIGXFSZ), record, StopPolicy{});
    CHECK(e.reason == "signaled");
    CHECK(e.detail == "terminated by SIGXFSZ (signal 25), which husk did not send; the kernel sends it to a "
                      "process writing past its RLIMIT_FSIZE (--fsize)");
}

TEST_CASE("a signal husk-init reported is the program's, and the detail says who saw it", "[container]") {
    state::Record record;
    ExitStatus status = signaled(SIGSEGV);
    status.signal_from_init = true;
    auto e = decide_exit(status, record, StopPolicy{});
    CHECK(e.reason == "signaled");
    CHECK(e.signal == SIGSEGV);
    CHECK(e.code == 128 + SIGSEGV);
    CHECK(e.detail == "terminated by SIGSEGV (signal 11), which husk did not send (the program's end as husk-init "
                      "reported it; husk-init exited with code 139)");
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

    // delete --force's SIGKILL is named as delete's, and both verbs when both sent it.
    record.kill_requests = {};
    record.force_deleted = true;
    e = decide_exit(signaled(SIGKILL), record, StopPolicy{});
    CHECK(e.reason == "killed");
    CHECK(e.detail == "killed by SIGKILL sent by husk delete --force");
    CHECK(decide_exit(signaled(SIGTERM), record, StopPolicy{}).reason == "signaled");
    record.kill_requests = {SIGKILL};
    CHECK(decide_exit(signaled(SIGKILL), record, StopPolicy{}).detail ==
          "killed by SIGKILL sent by husk kill and husk delete --force");
    record.force_deleted = false;

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
    polite.enforced.fire(Reason::timeout);
    polite.enforced.stop_signal_sent = true;
    auto e = decide_exit(polite, record, policy);
    CHECK(e.reason == "timeout");
    CHECK(e.code == 0);
    CHECK(e.detail == "wall-time limit 2s reached; sent SIGTERM, init ended within the 5s grace; the workload "
                      "exited on its own with code 0 after the limit fired");

    auto stubborn = signaled(SIGKILL);
    stubborn.enforced = polite.enforced;
    stubborn.enforced.killed = true;
    CHECK(decide_exit(stubborn, record, policy).detail ==
          "wall-time limit 2s reached; sent SIGTERM, killed after the 5s grace");

    auto at_once = signaled(SIGKILL);
    at_once.enforced.fire(Reason::timeout);
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
    // Its own limit never reached (memory.events.local max 0): the detail does not claim it was.
    oom.memory_max_hits = 0;
    CHECK(decide_exit(signaled(SIGKILL), record, StopPolicy{}, oom).detail ==
          "killed by the kernel's OOM killer (oom_kill +2; its own memory.max=33554432 was not reached: an "
          "ancestor's limit, such as its tenant's, or the machine's memory)");
    oom.memory_max_hits = -1;
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

TEST_CASE("a workload that exits on its own after a limit fired keeps its code, and husk run never exits 0",
          "[container]") {
    // The cause each limit records before it acts; the workload then exits 0 before the kill lands.
    StopPolicy policy = timeout_policy(milliseconds(1000));
    policy.output_limit = 4096;
    policy.cpu_limit = std::chrono::microseconds(300000);
    struct Case {
        state::StopCause cause;
        int status;
    };
    for (const Case& c : {Case{timeout_cause(policy), 124}, Case{cpu_limit_cause(policy, std::chrono::microseconds(300100)), 123},
                          Case{output_limit_cause(policy), 122}}) {
        state::Record record;
        record.cause = c.cause;
        for (int code : {0, 3}) {
            auto e = decide_exit(exited(code), record, policy);
            INFO(c.cause.reason << " code " << code);
            CHECK(e.reason == c.cause.reason);
            CHECK(e.code == code);  // what the kernel said, not a made-up code
            CHECK(e.signal == 0);
            CHECK(exited_after_limit(e));
            CHECK(e.detail == c.cause.detail + "; the workload exited on its own with code " + std::to_string(code) +
                                  " after the limit fired");
            CHECK(run_exit_status(e) == c.status);
        }
        // Ended by husk's kill: 128 + N, as a shell reports it, and no such note.
        auto killed = decide_exit(signaled(SIGKILL), record, policy);
        CHECK_FALSE(exited_after_limit(killed));
        CHECK(killed.detail == c.cause.detail);
        CHECK(run_exit_status(killed) == 128 + SIGKILL);
    }
}

TEST_CASE("husk run's status is the code without a limit, and 255 when the exit is unknown", "[container]") {
    state::Record record;
    CHECK(run_exit_status(decide_exit(exited(0), record, StopPolicy{})) == 0);
    CHECK(run_exit_status(decide_exit(exited(7), record, StopPolicy{})) == 7);
    CHECK(run_exit_status(decide_exit(signaled(SIGTERM), record, StopPolicy{})) == 128 + SIGTERM);
    CHECK(run_exit_status(decide_exit(monitor::ExitStatus{}, record, StopPolicy{})) == 255);
    // A timeout the kernel gave no exit status for: not "exited on its own", and not 0.
    record.cause = state::StopCause{"timeout", "wall-time limit 1s reached", "t"};
    auto unknown = decide_exit(monitor::ExitStatus{}, record, StopPolicy{});
    CHECK_FALSE(exited_after_limit(unknown));
    CHECK(run_exit_status(unknown) == 255);
    // The statuses are distinct from each other, from 0-2, 125-127, 128 + N and 255.
    CHECK(limit_exit_status("timeout") == 124);
    CHECK(limit_exit_status("cpu-limit") == 123);
    CHECK(limit_exit_status("output-limit") == 122);
    CHECK_FALSE(limit_exit_status("exited"));
    CHECK_FALSE(limit_exit_status("killed"));
}

TEST_CASE("a limit the monitor enforced is the reason even when its cause never reached the record", "[container]") {
    StopPolicy policy;
    policy.output_limit = 4096;
    policy.cpu_limit = std::chrono::microseconds(300000);
    auto flooded = exited(0);
    flooded.enforced.fire(Reason::output_limit);
    auto e = decide_exit(flooded, state::Record{}, policy);
    CHECK(e.reason == "output-limit");
    CHECK(run_exit_status(e) == 122);
    auto spent = signaled(SIGKILL);
    spent.enforced.fire(Reason::cpu_limit);
    e = decide_exit(spent, state::Record{}, policy);
    CHECK(e.reason == "cpu-limit");
    CHECK(e.detail == "CPU budget 300ms used up; killing the container");
    CHECK(run_exit_status(e) == 128 + SIGKILL);
}

TEST_CASE("the first limit recorded stays the reason when the wall-time limit fires while the container dies",
          "[container]") {
    StopPolicy policy = timeout_policy(milliseconds(1000));
    policy.output_limit = 4096;
    state::Record record;
    record.cause = output_limit_cause(policy);
    auto status = signaled(SIGKILL);
    status.enforced.fire(Reason::output_limit);
    status.enforced.fire(Reason::timeout);
    CHECK(decide_exit(status, record, policy).reason == "output-limit");
}
