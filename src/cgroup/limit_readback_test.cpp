// compare_readback across controllers and for files husk does not know (limit_readback.cpp).
#include <catch2/catch.hpp>

#include "cgroup/limits_test_support.hpp"

using namespace husk::cgroup;
using namespace husk::cgroup::testing;
namespace spec = husk::spec;

TEST_CASE("plain numbers and max compare as numbers", "[cgroup]") {
    CHECK(check("pids.max", "max", "max\n") == Readback::match);
    CHECK(check("pids.max", "32", "32\n") == Readback::match);
    CHECK(check("pids.max", "32", "max\n") == Readback::mismatch);
    CHECK(check("cpu.weight", "100", "100\n") == Readback::match);
    CHECK(check("cpu.weight.nice", "-5", "-5\n") == Readback::match);
    CHECK(check("memory.oom.group", "1", "0\n") == Readback::mismatch);
}

TEST_CASE("files husk does not know are unknown", "[cgroup]") {
    CHECK(check("memory.reclaim", "1M", "") == Readback::unknown);
    CHECK(check("rdma.max", "mlx5_1 hca_handle=3", "") == Readback::unknown);
}
