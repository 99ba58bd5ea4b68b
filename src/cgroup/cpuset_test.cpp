// The cpuset controller: read back (cpuset.cpp). Its plan is in cpu_test.cpp's fields test: the spec lists
// cpus and mems under cpu.
#include <catch2/catch.hpp>

#include "cgroup/limits_test_support.hpp"

using namespace husk::cgroup;
using namespace husk::cgroup::testing;
namespace spec = husk::spec;

TEST_CASE("cpuset lists compare as sets", "[cgroup]") {
    CHECK(check("cpuset.cpus", "0,1", "0-1\n") == Readback::match);
    CHECK(check("cpuset.cpus", "3,0-1", "0-1,3\n") == Readback::match);
    CHECK(check("cpuset.mems", "0", "0-1\n") == Readback::mismatch);
    CHECK(check("cpuset.cpus", "0-8:2/4", "0-1,4-5\n") == Readback::unknown);
}
