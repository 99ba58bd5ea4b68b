// The pids controller: pids.limit by ociVersion (pids.cpp).
#include <catch2/catch.hpp>

#include "cgroup/limits_test_support.hpp"

using namespace husk::cgroup;
using namespace husk::cgroup::testing;
namespace spec = husk::spec;

TEST_CASE("pids.limit follows runtime-spec 1.3.0 for a 1.3 config: 0 is a limit, -1 is max", "[cgroup][pids]") {
    spec::Resources r;
    r.pids_limit = 32;
    CHECK(plan(r) == std::vector<std::string>{"pids.max=32"});
    r.pids_limit = 0;
    CHECK(plan(r) == std::vector<std::string>{"pids.max=0"});
    r.pids_limit = -1;
    CHECK(plan(r) == std::vector<std::string>{"pids.max=max"});
    // 1.3 defines -1 only; any other negative value is refused rather than guessed.
    r.pids_limit = -2;
    CHECK(error_of(r) == "linux.resources.pids.limit: -2 is neither -1 (no limit) nor a number of tasks");
}

TEST_CASE("pids.limit of a config before runtime-spec 1.3 reads 0 and below as no limit (podman 4.3)",
          "[cgroup][pids]") {
    LimitOptions older;
    older.pids_reading = PidsLimitReading::before_1_3;
    spec::Resources r;
    r.pids_limit = 0;
    CHECK(plan(r, older) == std::vector<std::string>{"pids.max=max"});
    r.pids_limit = -1;
    CHECK(plan(r, older) == std::vector<std::string>{"pids.max=max"});
    r.pids_limit = -7;
    CHECK(plan(r, older) == std::vector<std::string>{"pids.max=max"});
    r.pids_limit = 1;
    CHECK(plan(r, older) == std::vector<std::string>{"pids.max=1"});
    r.pids_limit = 2048;
    CHECK(plan(r, older) == std::vector<std::string>{"pids.max=2048"});
}

TEST_CASE("the pids.limit reading follows the config's ociVersion", "[cgroup][pids]") {
    for (const char* version : {"1.0.0", "1.0.2-dev", "1.0.2", "1.1.0", "1.1.0-rc.1", "1.2.1", "1.2.0+dev"})
        CHECK(pids_limit_reading(version) == PidsLimitReading::before_1_3);
    for (const char* version : {"1.3.0", "1.3.10", "1.3.0-rc.1", "1.30.0", "1.4.0"})
        CHECK(pids_limit_reading(version) == PidsLimitReading::spec_1_3);
}
