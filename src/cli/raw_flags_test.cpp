#include "cli/raw_flags.hpp"

#include <catch2/catch.hpp>

using namespace husk::cli;

TEST_CASE("scan_verdict_flags finds --verdict, --verdict-fd and --output-format in both forms", "[cli][verdict]") {
    auto a = scan_verdict_flags({"--bogus", "--verdict", "/tmp/v.json", "--output-format=json", "id"});
    CHECK(a.verdict_path == "/tmp/v.json");
    CHECK(a.verdict_fd == -1);
    CHECK(a.json);
    auto b = scan_verdict_flags({"--timeout", "nonsense", "--verdict-fd=7", "--output-format", "text", "id"});
    CHECK(b.verdict_path.empty());
    CHECK(b.verdict_fd == 7);
    CHECK_FALSE(b.json);
    auto c = scan_verdict_flags({"--verdict=/v", "--verdict-fd", "3"});
    CHECK(c.verdict_path == "/v");
    CHECK(c.verdict_fd == 3);
}

TEST_CASE("scan_verdict_flags takes no value it cannot be sure of", "[cli][verdict]") {
    CHECK(scan_verdict_flags({"--verdict-fd", "x3"}).verdict_fd == -1);
    CHECK(scan_verdict_flags({"--verdict-fd", "3x"}).verdict_fd == -1);
    CHECK(scan_verdict_flags({"--verdict-fd=-1"}).verdict_fd == -1);
    CHECK(scan_verdict_flags({"--verdict"}).verdict_path.empty());             // no value at the end
    CHECK(scan_verdict_flags({"--verdict", "--keep"}).verdict_path.empty());   // the next word is a flag
    CHECK(scan_verdict_flags({"--verdicts", "/x"}).verdict_path.empty());      // another flag
    CHECK(scan_verdict_flags({"--", "--verdict", "/x"}).verdict_path.empty()); // the program's words
    CHECK(scan_verdict_flags({"--verdict", "/first", "--verdict", "/second"}).verdict_path == "/first");
}
