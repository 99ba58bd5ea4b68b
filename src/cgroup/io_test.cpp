// The io controller: weight conversion, plan and read back (io.cpp).
#include <catch2/catch.hpp>

#include "cgroup/limits_test_support.hpp"

using namespace husk::cgroup;
using namespace husk::cgroup::testing;
namespace spec = husk::spec;

TEST_CASE("blockIO weights convert linearly to io.weight", "[cgroup]") {
    CHECK(blkio_weight_to_io_weight(10) == 1);
    CHECK(blkio_weight_to_io_weight(500) == 4950);
    CHECK(blkio_weight_to_io_weight(1000) == 10000);
}

TEST_CASE("blockIO uses io.bfq.weight when it exists and io.weight converted otherwise", "[cgroup]") {
    spec::Resources r;
    r.block_io.emplace();
    r.block_io->weight = 500;
    r.block_io->weight_device.push_back({8, 0, 300, {}});
    CHECK(plan(r, probing({"io.bfq.weight", "io.weight"})) ==
          std::vector<std::string>{"io.bfq.weight=500", "io.bfq.weight=8:0 300"});
    CHECK(plan(r, probing({"io.weight"})) == std::vector<std::string>{"io.weight=4950", "io.weight=8:0 2930"});
    r.block_io->weight = 5;
    CHECK(error_of(r, probing({"io.weight"})) == "linux.resources.blockIO.weight: 5 is outside the range 10-1000");
}

TEST_CASE("blockIO throttles become io.max lines and leaf weights are refused", "[cgroup]") {
    spec::Resources r;
    r.block_io.emplace();
    r.block_io->throttle_read_bps_device.push_back({8, 0, 1048576});
    r.block_io->throttle_write_bps_device.push_back({8, 0, 2097152});
    r.block_io->throttle_read_iops_device.push_back({253, 1, 100});
    r.block_io->throttle_write_iops_device.push_back({253, 1, 50});
    CHECK(plan(r) == std::vector<std::string>{"io.max=8:0 rbps=1048576", "io.max=8:0 wbps=2097152",
                                              "io.max=253:1 riops=100", "io.max=253:1 wiops=50"});
    r.block_io->leaf_weight = 10;
    CHECK(error_of(r) == "linux.resources.blockIO.leafWeight: not available on cgroup v2 (there are no leaf weights)");
    r.block_io->leaf_weight.reset();
    r.block_io->weight_device.push_back({8, 0, {}, 300});
    CHECK(error_of(r).starts_with("linux.resources.blockIO.weightDevice[0].leafWeight: not available"));
    r.block_io->weight_device = {{8, 0, {}, {}}};
    CHECK(error_of(r) == "linux.resources.blockIO.weightDevice[0]: has no weight");
    r.block_io->weight_device.clear();
    r.block_io->throttle_read_bps_device.push_back({-1, 0, 1});
    CHECK(error_of(r) == "linux.resources.blockIO.throttleReadBpsDevice[1]: device -1:0 is out of range");
}

TEST_CASE("io.max lines list every key; each written key is found with its value", "[cgroup]") {
    std::string_view read = "8:0 rbps=1048576 wbps=max riops=max wiops=max\n253:1 rbps=max wbps=max riops=100 wiops=max\n";
    CHECK(check("io.max", "8:0 rbps=1048576", read) == Readback::match);
    CHECK(check("io.max", "253:1 riops=100", read) == Readback::match);
    CHECK(check("io.max", "8:0 wbps=5", read) == Readback::mismatch);
    CHECK(check("io.max", "8:16 rbps=5", read) == Readback::mismatch);
    CHECK(check("io.max", "8:16 rbps=max", read) == Readback::match);  // no limits: no line at all
    CHECK(check("io.max", "259:0 rbps=1048576 wiops=120\n8:0 rbps=1048576", read) == Readback::mismatch);
}

TEST_CASE("io weights read back as default and per-device lines", "[cgroup]") {
    std::string_view read = "default 4950\n8:0 2930\n";
    CHECK(check("io.weight", "4950", read) == Readback::match);
    CHECK(check("io.weight", "default 4950", read) == Readback::match);
    CHECK(check("io.weight", "8:0 2930", read) == Readback::match);
    CHECK(check("io.bfq.weight", "8:0 300", read) == Readback::mismatch);
    CHECK(check("io.weight", "8:16 default", read) == Readback::match);
    CHECK(check("io.weight", "8:0 default", read) == Readback::mismatch);
}
