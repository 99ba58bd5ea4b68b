#include "process/child_steps.hpp"

#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace {

// In a forked child (closing fds of the test process itself would break it): fds 10..17 open, then
// close_fds_except(first, keep); the exit status has bit n set when fd 10+n is still open.
int survivors(unsigned first, std::initializer_list<int> keep) {
    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        for (int fd = 10; fd < 18; ++fd)
            if (dup2(STDERR_FILENO, fd) != fd) _exit(255);
        if (!husk::process::steps::close_fds_except(first, keep.begin(), static_cast<int>(keep.size()))) _exit(254);
        int open_bits = 0;
        for (int fd = 10; fd < 18; ++fd)
            if (fcntl(fd, F_GETFD) >= 0) open_bits |= 1 << (fd - 10);
        _exit(open_bits);
    }
    int status = 0;
    REQUIRE(waitpid(pid, &status, 0) == pid);
    REQUIRE(WIFEXITED(status));
    return WEXITSTATUS(status);
}

}  // namespace

TEST_CASE("close_fds_except keeps the named fds and those below first, in any order", "[process]") {
    CHECK(survivors(10, {}) == 0);
    CHECK(survivors(10, {15, 11}) == ((1 << 1) | (1 << 5)));
    CHECK(survivors(10, {10, 17}) == ((1 << 0) | (1 << 7)));
    CHECK(survivors(13, {16}) == 0b01000111);        // 10-12 are below first
    CHECK(survivors(13, {11, 12, -1}) == 0b00000111); // below first or invalid: nothing else kept
    CHECK(survivors(10, {12, 12, 13}) == 0b00001100); // a duplicate is harmless
}
