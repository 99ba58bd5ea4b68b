#include "cgroup/cpu_hold.hpp"

#include <catch2/catch.hpp>

using namespace husk::cgroup;
using std::chrono::microseconds;

TEST_CASE("held_cpu_max without a quota allows what is left in the longest period", "[cgroup][cpu-hold]") {
    CHECK(held_cpu_max("max 100000\n", microseconds(120000)) == "120000 1000000");
    // Below the kernel's smallest quota the floor is 1 ms; nothing left still allows that much.
    CHECK(held_cpu_max("max 100000", microseconds(300)) == "1000 1000000");
    CHECK(held_cpu_max("max 100000", microseconds(-5)) == "1000 1000000");
}

TEST_CASE("held_cpu_max is never looser than the quota already there", "[cgroup][cpu-hold]") {
    // The config's quota and period stay when they are the tighter limit...
    CHECK(held_cpu_max("50000 100000\n", microseconds(200000)) == "50000 100000");
    // ...and the period stays when what is left is the tighter one...
    CHECK(held_cpu_max("50000 100000", microseconds(40000)) == "40000 100000");
    // ...until it is at most half the quota: then the longest period (no refill every 100 ms), which no window
    // of 100 ms can see more than twice.
    CHECK(held_cpu_max("50000 100000", microseconds(25000)) == "25000 1000000");
    CHECK(held_cpu_max("50000 100000", microseconds(10)) == "1000 1000000");
}

TEST_CASE("held_cpu_max refuses what does not read as cpu.max", "[cgroup][cpu-hold]") {
    CHECK_FALSE(held_cpu_max("", microseconds(1000)));
    CHECK_FALSE(held_cpu_max("max", microseconds(1000)));
    CHECK_FALSE(held_cpu_max("max 0", microseconds(1000)));
    CHECK_FALSE(held_cpu_max("lots 100000", microseconds(1000)));
    CHECK_FALSE(held_cpu_max("1 2 3", microseconds(1000)));
}
