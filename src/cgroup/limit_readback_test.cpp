#include "cgroup/limit_readback.hpp"

#include <catch2/catch.hpp>

using namespace husk::cgroup;

namespace {
constexpr std::size_t page = 4096;
Readback check(std::string_view file, std::string_view written, std::string_view read) {
    return compare_readback(file, written, read, page);
}
}  // namespace

TEST_CASE("memory values read back rounded down to whole pages", "[cgroup]") {
    CHECK(check("memory.max", "33554433", "33554432\n") == Readback::match);
    CHECK(check("memory.max", "33554432", "33550336\n") == Readback::mismatch);
    CHECK(check("memory.max", "max", "max\n") == Readback::match);
    CHECK(check("memory.max", "max", "4096\n") == Readback::mismatch);
    CHECK(check("memory.swap.max", "0", "0\n") == Readback::match);
    CHECK(check("memory.low", "1G", "1073741824\n") == Readback::match);
    CHECK(check("memory.high", "9223372036854775807", "max\n") == Readback::match);
    CHECK(check("memory.high", "0x10", "16\n") == Readback::unknown);
}

TEST_CASE("hugetlb limits read back rounded down to whole huge pages", "[cgroup]") {
    CHECK(check("hugetlb.2MB.max", "5242880", "4194304\n") == Readback::match);
    CHECK(check("hugetlb.2MB.rsvd.max", "4194304", "4194304\n") == Readback::match);
    CHECK(check("hugetlb.1GB.max", "1073741824", "0\n") == Readback::mismatch);
}

TEST_CASE("plain numbers and max compare as numbers", "[cgroup]") {
    CHECK(check("pids.max", "max", "max\n") == Readback::match);
    CHECK(check("pids.max", "32", "32\n") == Readback::match);
    CHECK(check("pids.max", "32", "max\n") == Readback::mismatch);
    CHECK(check("cpu.weight", "100", "100\n") == Readback::match);
    CHECK(check("cpu.weight.nice", "-5", "-5\n") == Readback::match);
    CHECK(check("memory.oom.group", "1", "0\n") == Readback::mismatch);
}

TEST_CASE("cpu.max compares quota and, when written, the period", "[cgroup]") {
    CHECK(check("cpu.max", "max 100000", "max 100000\n") == Readback::match);
    CHECK(check("cpu.max", "50000 100000", "50000 100000\n") == Readback::match);
    CHECK(check("cpu.max", "50000", "50000 250000\n") == Readback::match);
    CHECK(check("cpu.max", "50000 100000", "50000 200000\n") == Readback::mismatch);
    CHECK(check("cpu.max", "max", "25000 100000\n") == Readback::mismatch);
}

TEST_CASE("cpuset lists compare as sets", "[cgroup]") {
    CHECK(check("cpuset.cpus", "0,1", "0-1\n") == Readback::match);
    CHECK(check("cpuset.cpus", "3,0-1", "0-1,3\n") == Readback::match);
    CHECK(check("cpuset.mems", "0", "0-1\n") == Readback::mismatch);
    CHECK(check("cpuset.cpus", "0-8:2/4", "0-1,4-5\n") == Readback::unknown);
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

TEST_CASE("files husk does not know are unknown", "[cgroup]") {
    CHECK(check("memory.reclaim", "1M", "") == Readback::unknown);
    CHECK(check("rdma.max", "mlx5_1 hca_handle=3", "") == Readback::unknown);
}
