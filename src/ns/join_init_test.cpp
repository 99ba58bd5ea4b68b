#include <catch2/catch.hpp>

#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ns/join_init.hpp"

namespace {

// A child in new uts and ipc namespaces, waiting until its pipe closes.
struct Unshared {
    pid_t pid = -1;
    int release = -1;
    Unshared() {
        int ready[2], hold[2];
        REQUIRE(pipe(ready) == 0);
        REQUIRE(pipe(hold) == 0);
        pid = fork();
        REQUIRE(pid >= 0);
        if (pid == 0) {
            close(ready[0]);
            close(hold[1]);
            char byte = unshare(CLONE_NEWUTS | CLONE_NEWIPC) == 0 ? '1' : '0';
            (void)!write(ready[1], &byte, 1);
            (void)!read(hold[0], &byte, 1);
            _exit(0);
        }
        close(ready[1]);
        close(hold[0]);
        release = hold[1];
        char byte = 0;
        REQUIRE(read(ready[0], &byte, 1) == 1);
        close(ready[0]);
        REQUIRE(byte == '1');
    }
    ~Unshared() {
        close(release);
        waitpid(pid, nullptr, 0);
    }
};

}  // namespace

TEST_CASE("joining our own process's namespaces joins nothing", "[ns]") {
    auto joined = husk::ns::open_init_namespaces(getpid(), false);
    REQUIRE(joined);
    CHECK(joined->setns_flags == 0);
    CHECK_FALSE(joined->for_children.join_pid);
    CHECK_FALSE(joined->for_children.join_time);
}

TEST_CASE("exec joins exactly the namespaces of init that differ from ours", "[ns]") {
    Unshared init;
    auto joined = husk::ns::open_init_namespaces(init.pid, false);
    REQUIRE(joined);
    CHECK(joined->setns_flags == (CLONE_NEWUTS | CLONE_NEWIPC));
    CHECK_FALSE(joined->for_children.join_pid);
}

TEST_CASE("a pid that is gone has no namespaces to join", "[ns]") {
    pid_t child = fork();
    if (child == 0) _exit(0);
    waitpid(child, nullptr, 0);
    CHECK_FALSE(husk::ns::open_init_namespaces(child, false));
}
