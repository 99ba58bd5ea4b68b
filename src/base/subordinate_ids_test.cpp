#include "base/subordinate_ids.hpp"

#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

using husk::subordinate_ids;

namespace {

std::string write_temp(const std::string& text) {
    char path[] = "/tmp/husk-subid-XXXXXX";
    int fd = ::mkstemp(path);
    REQUIRE(fd >= 0);
    ::close(fd);
    std::ofstream(path) << text;
    return path;
}

}  // namespace

TEST_CASE("subordinate_ids: a user's ranges by name or by uid, other lines skipped", "[base][subordinate-ids]") {
    const std::string path = write_temp("alice:100000:65536\n"
                                        "# comment\n"
                                        "bob:165536:65536\n"
                                        "1000:300000:10\n"
                                        "alice:400000:0\n"       // no ids
                                        "alice:x:5\n"            // not a number
                                        "alice:500000:5");      // no trailing newline
    auto alice = subordinate_ids(path, "alice", 1000);
    REQUIRE(alice);
    REQUIRE(alice->size() == 3);
    CHECK((*alice)[0].start == 100000);
    CHECK((*alice)[0].count == 65536);
    CHECK((*alice)[1].start == 300000);  // by uid
    CHECK((*alice)[2].start == 500000);
    CHECK((*alice)[0].holds(165535));
    CHECK_FALSE((*alice)[0].holds(165536));
    auto nobody = subordinate_ids(path, "carol", 1002);
    REQUIRE(nobody);
    CHECK(nobody->empty());
    std::remove(path.c_str());
    auto missing = subordinate_ids("/nonexistent/subuid", "alice", 1000);
    REQUIRE(missing);
    CHECK(missing->empty());
}
