// For the seccomp unit tests only: profiles from JSON, and a forked child that loads a plan, makes system
// calls and reports what they returned. The filter stays in the child; the test process is untouched.
#pragma once

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <string>
#include <type_traits>

#include "base/run_in_child.hpp"
#include "seccomp/filter.hpp"
#include "spec/parse.hpp"

namespace husk::seccomp::test {

inline spec::Seccomp parse_profile(const std::string& seccomp_json) {
    auto spec = spec::parse_config(R"({"linux": {"seccomp": )" + seccomp_json + "}}");
    REQUIRE(spec);
    REQUIRE(spec->linux->seccomp);
    return *spec->linux->seccomp;
}

inline SeccompPlan prepare(const std::string& seccomp_json, const SeccompOptions& options = {}) {
    auto plan = prepare_seccomp(parse_profile(seccomp_json), options);
    if (!plan) FAIL(plan.error().message());
    return *plan;
}

inline std::string prepare_error(const std::string& seccomp_json, const SeccompOptions& options = {}) {
    auto plan = prepare_seccomp(parse_profile(seccomp_json), options);
    REQUIRE_FALSE(plan);
    return plan.error().message();
}

// What one system call returned: the raw result and errno (0 when it succeeded).
struct Call {
    long result = 0;
    int error = 0;
};

template <typename... Args>
Call call(long number, Args... args) {
    errno = 0;
    long result = ::syscall(number, args...);
    return {result, result < 0 ? errno : 0};
}

template <typename Report>
using Outcome = ChildOutcome<Report>;

// Forks; the child sets no_new_privs (seccomp(2) needs it without CAP_SYS_ADMIN) and RLIMIT_CORE 0 (SIGSYS
// dumps core), loads `plan`, runs body() and writes its Report to a pipe. The plan must allow write and
// exit_group. A load failure is reported as exit status 100 + errno.
template <typename Report, typename Body>
Outcome<Report> run_filtered(const SeccompPlan& plan, Body body) {
    Outcome<Report> outcome = fork_and_report<Report>([&]() -> Report {
        rlimit no_core{0, 0};
        ::setrlimit(RLIMIT_CORE, &no_core);
        if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) ::_exit(99);
        if (auto loaded = apply_seccomp(plan); !loaded) ::_exit(100 + loaded.error().err);
        return body();
    });
    INFO("child wait status " << outcome.status);
    if (!outcome.reported && WIFEXITED(outcome.status))
        FAIL("the child exited with " << WEXITSTATUS(outcome.status) << " before reporting (100 + errno: load failed)");
    if (outcome.reported) REQUIRE((WIFEXITED(outcome.status) && WEXITSTATUS(outcome.status) == 0));
    return outcome;
}

// The entries every default-deny test profile needs so that the child can report and exit.
inline const char* const kReportingAllowed =
    R"({"names": ["write", "exit_group", "exit"], "action": "SCMP_ACT_ALLOW"})";

}  // namespace husk::seccomp::test
