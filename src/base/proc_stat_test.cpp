#include "base/proc_stat.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>

using namespace husk;

TEST_CASE("own_start_time is the start time in the process's own stat, also in a forked child", "[base]") {
    auto cached = own_start_time();
    REQUIRE(cached);
    auto read = read_proc_stat(::getpid());
    REQUIRE(read);
    CHECK(*cached == read->start_time);
    CHECK(*own_start_time() == *cached);
    // A child shares the cache's memory: it must read its own stat, not return its parent's start time.
    int pipe_fds[2];
    REQUIRE(::pipe(pipe_fds) == 0);
    pid_t child = ::fork();
    REQUIRE(child >= 0);
    if (child == 0) {
        ::usleep(20000);  // at least one clock tick after the parent started
        auto own = own_start_time();
        auto stat = read_proc_stat(::getpid());
        char same = own && stat && *own == stat->start_time ? 1 : 0;
        (void)!::write(pipe_fds[1], &same, 1);
        ::_exit(0);
    }
    ::close(pipe_fds[1]);
    char same = 0;
    CHECK(::read(pipe_fds[0], &same, 1) == 1);
    ::close(pipe_fds[0]);
    ::waitpid(child, nullptr, 0);
    CHECK(same == 1);
}
