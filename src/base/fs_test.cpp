#include "base/fs.hpp"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <string>

TEST_CASE("write_file_atomic replaces content and leaves no temporary file", "[base]") {
    char dir[] = "/tmp/husk-fs-test-XXXXXX";
    REQUIRE(mkdtemp(dir) != nullptr);
    int dirfd = open(dir, O_DIRECTORY | O_CLOEXEC);
    REQUIRE(dirfd >= 0);
    REQUIRE(husk::write_file_atomic(dirfd, "state.json", "one"));
    REQUIRE(husk::write_file_atomic(dirfd, "state.json", "two"));
    CHECK(husk::read_file(std::string(dir) + "/state.json").value() == "two");
    CHECK(faccessat(dirfd, ".state.json.tmp", F_OK, 0) != 0);
    unlinkat(dirfd, "state.json", 0);
    close(dirfd);
    rmdir(dir);
}

TEST_CASE("read_file of a missing path reports open, the path and ENOENT", "[base]") {
    auto r = husk::read_file("/nonexistent/husk");
    REQUIRE_FALSE(r);
    CHECK(r.error().err == ENOENT);
    CHECK(r.error().message() == "open \"/nonexistent/husk\": no such file or directory");
}
