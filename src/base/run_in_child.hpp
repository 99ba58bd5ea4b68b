// run_in_child: for unit tests only. Runs a body in a forked child, so that what it applies (namespaces,
// credentials, limits) leaves the test process untouched, and returns the report the body produced.
// The child may allocate here only because tests are not the container path; the real container child
// must not (docs/design.md, "Prepare in the parent, apply in the child").
#pragma once

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <type_traits>

#include "husk/unique_fd.hpp"

namespace husk {

// What a forked child reported, and how it ended.
template <typename Report>
struct ChildOutcome {
    bool reported = false;  // false: the child died (or exited) before writing its whole report
    Report report{};
    int status = 0;  // waitpid status
    bool killed_by(int signal) const { return WIFSIGNALED(status) && WTERMSIG(status) == signal; }
};

// body() runs in the child and returns a Report, which crosses a pipe byte for byte (hence trivially
// copyable); the child then _exits 0 (1 if the report could not be written). The body may _exit or die on
// its own: the parent reaps the child either way and returns what it saw, asserting nothing.
template <typename Report, typename Body>
ChildOutcome<Report> fork_and_report(Body body) {
    static_assert(std::is_trivially_copyable_v<Report>, "the report crosses a pipe as raw bytes");
    int fds[2];
    REQUIRE(::pipe2(fds, O_CLOEXEC) == 0);
    UniqueFd read_end(fds[0]), write_end(fds[1]);
    pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        read_end.reset();
        Report report = body();
        ssize_t n = ::write(write_end.get(), &report, sizeof report);
        ::_exit(n == static_cast<ssize_t>(sizeof report) ? 0 : 1);
    }
    write_end.reset();
    ChildOutcome<Report> outcome;
    ssize_t n = ::read(read_end.get(), &outcome.report, sizeof outcome.report);
    outcome.reported = n == static_cast<ssize_t>(sizeof outcome.report);
    REQUIRE(::waitpid(pid, &outcome.status, 0) == pid);
    return outcome;
}

// fork_and_report for a body that must finish: REQUIREs a whole report and a normal exit.
template <typename Report, typename Body>
Report run_in_child(Body body) {
    ChildOutcome<Report> outcome = fork_and_report<Report>(body);
    INFO("child wait status " << outcome.status);
    REQUIRE(outcome.reported);
    REQUIRE(WIFEXITED(outcome.status));
    return outcome.report;
}

}  // namespace husk
