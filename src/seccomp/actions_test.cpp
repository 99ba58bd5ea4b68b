// Every action of config-linux.md "Seccomp", observed in a child that loaded the filter.
#include <linux/capability.h>
#include <sys/syscall.h>

#include <csignal>

#include "seccomp/kernel.hpp"
#include "seccomp/test_support.hpp"

using namespace husk::seccomp::test;

namespace {

// getppid: harmless, no arguments, and its result is checkable.
Outcome<Call> getppid_under(const std::string& action_entry, const std::string& default_action = "SCMP_ACT_ALLOW") {
    auto plan = prepare(R"({"defaultAction": ")" + default_action + R"(", "syscalls": [)" + kReportingAllowed + ", " +
                        action_entry + "]}");
    return run_filtered<Call>(plan, [] { return call(SYS_getppid); });
}

}  // namespace

TEST_CASE("SCMP_ACT_ERRNO returns errnoRet, or EPERM without it", "[seccomp]") {
    auto custom = getppid_under(R"({"names": ["getppid"], "action": "SCMP_ACT_ERRNO", "errnoRet": 77})");
    REQUIRE(custom.reported);
    CHECK(custom.report.result == -1);
    CHECK(custom.report.error == 77);
    auto plain = getppid_under(R"({"names": ["getppid"], "action": "SCMP_ACT_ERRNO"})");
    REQUIRE(plain.reported);
    CHECK(plain.report.error == EPERM);
}

TEST_CASE("an SCMP_ACT_ERRNO rule with errnoRet 0 makes the call return 0 without running it", "[seccomp]") {
    auto outcome = getppid_under(R"({"names": ["getppid"], "action": "SCMP_ACT_ERRNO", "errnoRet": 0})");
    REQUIRE(outcome.reported);
    CHECK(outcome.report.result == 0);
    CHECK(outcome.report.error == 0);
}

TEST_CASE("the default SCMP_ACT_ERRNO action returns defaultErrnoRet", "[seccomp]") {
    auto plan = prepare(R"({"defaultAction": "SCMP_ACT_ERRNO", "defaultErrnoRet": 13, "syscalls": [)" +
                        std::string(kReportingAllowed) + "]}");
    auto outcome = run_filtered<Call>(plan, [] { return call(SYS_getppid); });
    REQUIRE(outcome.reported);
    CHECK(outcome.report.error == EACCES);
}

TEST_CASE("SCMP_ACT_KILL_PROCESS, SCMP_ACT_KILL_THREAD and SCMP_ACT_KILL end the child with SIGSYS", "[seccomp]") {
    for (const char* action : {"SCMP_ACT_KILL_PROCESS", "SCMP_ACT_KILL_THREAD", "SCMP_ACT_KILL"}) {
        INFO(action);
        auto outcome = getppid_under(R"({"names": ["getppid"], "action": ")" + std::string(action) + R"("})");
        CHECK_FALSE(outcome.reported);
        CHECK(outcome.killed_by(SIGSYS));
    }
}

TEST_CASE("SCMP_ACT_TRAP delivers SIGSYS, which ends a child that does not handle it", "[seccomp]") {
    auto outcome = getppid_under(R"({"names": ["getppid"], "action": "SCMP_ACT_TRAP"})");
    CHECK_FALSE(outcome.reported);
    CHECK(outcome.killed_by(SIGSYS));
}

TEST_CASE("SCMP_ACT_TRACE without a tracer fails the call with ENOSYS", "[seccomp]") {
    // seccomp(2), SECCOMP_RET_TRACE: "If there is no tracer present, the system call is not executed and
    // returns a failure status with errno set to ENOSYS."
    auto outcome = getppid_under(R"({"names": ["getppid"], "action": "SCMP_ACT_TRACE"})");
    REQUIRE(outcome.reported);
    CHECK(outcome.report.error == ENOSYS);
}

TEST_CASE("SCMP_ACT_LOG and SCMP_ACT_ALLOW let the call through", "[seccomp]") {
    pid_t parent = ::getpid();
    auto logged = getppid_under(R"({"names": ["getppid"], "action": "SCMP_ACT_LOG"})", "SCMP_ACT_ERRNO");
    REQUIRE(logged.reported);
    CHECK(logged.report.result == parent);
    auto allowed = getppid_under(R"({"names": ["getppid"], "action": "SCMP_ACT_ALLOW"})", "SCMP_ACT_KILL_PROCESS");
    REQUIRE(allowed.reported);
    CHECK(allowed.report.result == parent);
}

TEST_CASE("the filter flags TSYNC, LOG and SPEC_ALLOW load and the process is in seccomp filter mode", "[seccomp]") {
    auto plan = prepare(R"({"defaultAction": "SCMP_ACT_ALLOW", "flags": ["SECCOMP_FILTER_FLAG_TSYNC",
        "SECCOMP_FILTER_FLAG_LOG", "SECCOMP_FILTER_FLAG_SPEC_ALLOW"],
        "syscalls": [{"names": ["getppid"], "action": "SCMP_ACT_ERRNO", "errnoRet": 5}]})");
    using namespace husk::seccomp;
    CHECK(plan.flags == (kFlagTsync | kFlagLog | kFlagSpecAllow));
    struct Report {
        Call getppid;
        long mode;
    };
    auto outcome = run_filtered<Report>(plan, [] { return Report{call(SYS_getppid), ::prctl(PR_GET_SECCOMP)}; });
    REQUIRE(outcome.reported);
    CHECK(outcome.report.getppid.error == EIO);
    CHECK(outcome.report.mode == 2);  // SECCOMP_MODE_FILTER
}

TEST_CASE("apply_seccomp without no_new_privs or CAP_SYS_ADMIN fails with EACCES", "[seccomp]") {
    auto plan = prepare(R"({"defaultAction": "SCMP_ACT_ALLOW"})");
    pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        // Drop CAP_SYS_ADMIN from the effective set only; no_new_privs stays off.
        __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
        __user_cap_data_struct data[2] = {};
        if (::syscall(SYS_capget, &header, data) != 0) ::_exit(2);
        data[CAP_SYS_ADMIN / 32].effective &= ~(1u << (CAP_SYS_ADMIN % 32));
        if (::syscall(SYS_capset, &header, data) != 0) ::_exit(3);
        auto loaded = husk::seccomp::apply_seccomp(plan);
        ::_exit(loaded ? 0 : (loaded.error().err == EACCES ? 1 : 4));
    }
    int status = 0;
    REQUIRE(::waitpid(pid, &status, 0) == pid);
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 1);
}
