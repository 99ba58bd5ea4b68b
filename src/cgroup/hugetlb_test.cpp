// The hugetlb controller: plan and read back (hugetlb.cpp).
#include <catch2/catch.hpp>

#include "cgroup/limits_test_support.hpp"

using namespace husk::cgroup;
using namespace husk::cgroup::testing;
namespace spec = husk::spec;

TEST_CASE("hugepage limits write .max and .rsvd.max where the kernel has it", "[cgroup]") {
    spec::Resources r;
    r.hugepage_limits.push_back({"2MB", 4194304});
    CHECK(plan(r) == std::vector<std::string>{"hugetlb.2MB.max=4194304"});
    CHECK(plan(r, probing({"hugetlb.2MB.max", "hugetlb.2MB.rsvd.max"})) ==
          std::vector<std::string>{"hugetlb.2MB.max=4194304", "hugetlb.2MB.rsvd.max=4194304"});
    CHECK(plan(r, probing({"hugetlb.2MB.max"})) == std::vector<std::string>{"hugetlb.2MB.max=4194304"});
    CHECK(error_of(r, probing({"hugetlb.1GB.max"})) ==
          "linux.resources.hugepageLimits[0].pageSize: the kernel offers no 2MB huge pages (no hugetlb.2MB.max in "
          "/sys/fs/cgroup/c)");
    for (const char* bad : {"2mb", "2M", "MB", "02MB", "2.5MB", "../MB"}) {
        r.hugepage_limits = {{bad, 1}};
        CHECK(error_of(r) == "linux.resources.hugepageLimits[0].pageSize: \"" + std::string(bad) +
                                 "\" is not a page size like \"2MB\"");
    }
}

TEST_CASE("hugetlb limits read back rounded down to whole huge pages", "[cgroup]") {
    CHECK(check("hugetlb.2MB.max", "5242880", "4194304\n") == Readback::match);
    CHECK(check("hugetlb.2MB.rsvd.max", "4194304", "4194304\n") == Readback::match);
    CHECK(check("hugetlb.1GB.max", "1073741824", "0\n") == Readback::mismatch);
}
