// Conflicting unconditional rules for one syscall settle to the strictest action (docs/security.md,
// "Conflicting rules"), observed in a child that loaded the filter, and recorded in the plan.
#include <catch2/catch.hpp>

#include <sys/syscall.h>

#include <csignal>

#include "seccomp/test_support.hpp"

using namespace husk::seccomp;
using namespace husk::seccomp::test;

namespace {

// A default-allow profile with two unconditional getppid rules, `first` listed before `second`.
std::string two_rules(const std::string& first, const std::string& second, const std::string& extra = "") {
    return R"({"defaultAction": "SCMP_ACT_ALLOW")" + extra + R"(, "syscalls": [{"names": ["getppid"], )" + first +
           R"(}, {"names": ["getppid"], )" + second + "}]}";
}

Outcome<Call> getppid_under(const SeccompPlan& plan) {
    return run_filtered<Call>(plan, [] { return call(SYS_getppid); });
}

}  // namespace

TEST_CASE("an allow and an errno rule for one syscall settle to the errno, in either order, and the plan says so",
          "[seccomp]") {
    const std::string allow = R"("action": "SCMP_ACT_ALLOW")";
    const std::string deny = R"("action": "SCMP_ACT_ERRNO", "errnoRet": 77)";
    for (bool deny_first : {false, true}) {
        INFO("deny first: " << deny_first);
        // Under a default that kills, so that a rule that was lost would show as SIGSYS, not as a pass.
        auto plan = prepare(R"({"defaultAction": "SCMP_ACT_KILL_PROCESS", "syscalls": [)" + std::string(kReportingAllowed) +
                            R"(, {"names": ["getppid"], )" + (deny_first ? deny : allow) + R"(}, {"names": ["getppid"], )" +
                            (deny_first ? allow : deny) + "}]}");
        auto outcome = getppid_under(plan);
        REQUIRE(outcome.reported);
        CHECK(outcome.report.result == -1);
        CHECK(outcome.report.error == 77);
        REQUIRE(plan.resolutions.size() == 1);
        CHECK(plan.resolutions[0].syscall == "getppid");
        CHECK(plan.resolutions[0].kept ==
              (deny_first ? "syscalls[1]: SCMP_ACT_ERRNO (errnoRet 77)" : "syscalls[2]: SCMP_ACT_ERRNO (errnoRet 77)"));
        CHECK(plan.resolutions[0].dropped ==
              std::vector<std::string>{deny_first ? "syscalls[2]: SCMP_ACT_ALLOW" : "syscalls[1]: SCMP_ACT_ALLOW"});
    }
}

TEST_CASE("the stricter action wins: kill over trap over errno over trace over log over allow", "[seccomp]") {
    // trap beats errno: SIGSYS.
    auto trap = getppid_under(prepare(two_rules(R"("action": "SCMP_ACT_ERRNO", "errnoRet": 77)", R"("action": "SCMP_ACT_TRAP")")));
    CHECK_FALSE(trap.reported);
    CHECK((WIFSIGNALED(trap.status) && WTERMSIG(trap.status) == SIGSYS));
    // kill beats trap (the same signal, but the plan keeps the kill).
    auto kill_plan = prepare(two_rules(R"("action": "SCMP_ACT_TRAP")", R"("action": "SCMP_ACT_KILL_PROCESS")"));
    REQUIRE(kill_plan.resolutions.size() == 1);
    CHECK(kill_plan.resolutions[0].kept == "syscalls[1]: SCMP_ACT_KILL_PROCESS");
    auto killed = getppid_under(kill_plan);
    CHECK((WIFSIGNALED(killed.status) && WTERMSIG(killed.status) == SIGSYS));
    CHECK(prepare(two_rules(R"("action": "SCMP_ACT_KILL_THREAD")", R"("action": "SCMP_ACT_KILL_PROCESS")"))
              .resolutions.at(0).kept == "syscalls[1]: SCMP_ACT_KILL_PROCESS");
    // errno beats trace: the errno, not trace's ENOSYS without a tracer.
    auto errno_plan = prepare(two_rules(R"("action": "SCMP_ACT_TRACE")", R"("action": "SCMP_ACT_ERRNO", "errnoRet": 77)"));
    auto denied = getppid_under(errno_plan);
    REQUIRE(denied.reported);
    CHECK(denied.report.error == 77);
    // trace beats log and allow: ENOSYS, the call does not go through.
    auto traced = getppid_under(prepare(two_rules(R"("action": "SCMP_ACT_LOG")", R"("action": "SCMP_ACT_TRACE")")));
    REQUIRE(traced.reported);
    CHECK(traced.report.error == ENOSYS);
    // log beats allow (both let the call through; the plan keeps the log).
    CHECK(prepare(two_rules(R"("action": "SCMP_ACT_ALLOW")", R"("action": "SCMP_ACT_LOG")")).resolutions.at(0).kept ==
          "syscalls[1]: SCMP_ACT_LOG");
}

TEST_CASE("notify ranks between errno and trace, as in the kernel's precedence", "[seccomp]") {
    const std::string listener = R"(, "listenerPath": "/run/agent.sock")";
    auto over_trace = prepare(two_rules(R"("action": "SCMP_ACT_TRACE")", R"("action": "SCMP_ACT_NOTIFY")", listener));
    CHECK(over_trace.resolutions.at(0).kept == "syscalls[1]: SCMP_ACT_NOTIFY");
    CHECK(over_trace.uses_notify);
    auto under_errno = prepare(two_rules(R"("action": "SCMP_ACT_NOTIFY")", R"("action": "SCMP_ACT_ERRNO")", listener));
    CHECK(under_errno.resolutions.at(0).kept == "syscalls[1]: SCMP_ACT_ERRNO (errnoRet 1)");
    CHECK_FALSE(under_errno.uses_notify);  // the notify rule is gone: no listener is asked for
}

TEST_CASE("two errno values for one syscall keep the first listed", "[seccomp]") {
    auto plan = prepare(two_rules(R"("action": "SCMP_ACT_ERRNO", "errnoRet": 77)", R"("action": "SCMP_ACT_ERRNO", "errnoRet": 13)"));
    REQUIRE(plan.resolutions.size() == 1);
    CHECK(plan.resolutions[0].dropped == std::vector<std::string>{"syscalls[1]: SCMP_ACT_ERRNO (errnoRet 13)"});
    auto outcome = getppid_under(plan);
    REQUIRE(outcome.reported);
    CHECK(outcome.report.error == 77);
}

TEST_CASE("a kept rule that repeats the default action leaves the syscall to the default", "[seccomp]") {
    // podman's shape: the big allow list and a deny entry that equals the default (here errno 38).
    auto plan = prepare(R"({"defaultAction": "SCMP_ACT_ERRNO", "defaultErrnoRet": 38, "syscalls": [)" +
                        std::string(kReportingAllowed) + R"(, {"names": ["getppid"], "action": "SCMP_ACT_ALLOW"},
                        {"names": ["getppid"], "action": "SCMP_ACT_ERRNO", "errnoRet": 38}]})");
    REQUIRE(plan.resolutions.size() == 1);
    auto outcome = getppid_under(plan);
    REQUIRE(outcome.reported);
    CHECK(outcome.report.error == 38);
}

TEST_CASE("may_deny_with names the errnos the filter returns", "[seccomp]") {
    auto plan = prepare(R"({"defaultAction": "SCMP_ACT_ERRNO", "defaultErrnoRet": 13, "syscalls": [
                           {"names": ["getppid"], "action": "SCMP_ACT_ERRNO", "errnoRet": 77}]})");
    CHECK(may_deny_with(plan, ENOSYS));
    CHECK(may_deny_with(plan, EACCES));
    CHECK(may_deny_with(plan, 77));
    CHECK_FALSE(may_deny_with(plan, ENOENT));
    CHECK_FALSE(may_deny_with(plan, EPERM));
}
