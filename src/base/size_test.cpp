#include "base/size.hpp"

#include <catch2/catch.hpp>
#include <string>

using husk::parse_size;

TEST_CASE("a size is bytes or a number with a binary unit in any spelling", "[base][size]") {
    CHECK(parse_size("0").value() == 0);
    CHECK(parse_size("4096").value() == 4096);
    CHECK(parse_size("100b").value() == 100);
    CHECK(parse_size("100B").value() == 100);
    for (const char* k : {"1k", "1K", "1kb", "1KB", "1KiB", "1kib", "1 KiB"}) {
        INFO(k);
        CHECK(parse_size(k).value() == 1024);
    }
    for (const char* m : {"64m", "64M", "64MB", "64MiB"}) {
        INFO(m);
        CHECK(parse_size(m).value() == 64ull << 20);
    }
    CHECK(parse_size("1g").value() == 1ull << 30);
    CHECK(parse_size("2t").value() == 2ull << 40);
    CHECK(parse_size("1p").value() == 1ull << 50);
    CHECK(parse_size("18446744073709551615").value() == UINT64_MAX);
    CHECK(parse_size("16383p").value() == 16383ull << 50);
}

TEST_CASE("a fractional size is taken only when it comes to whole bytes", "[base][size]") {
    CHECK(parse_size("1.5k").value() == 1536);
    CHECK(parse_size("1.5g").value() == 1536ull << 20);
    CHECK(parse_size("0.25KiB").value() == 256);
    CHECK(parse_size("2.0").value() == 2);
    CHECK(parse_size("0.000000001p").has_value() == false);  // 1.1259 bytes
    auto tenth = parse_size("0.1k");
    REQUIRE_FALSE(tenth);
    CHECK(tenth.error().message().find("whole number of bytes") != std::string::npos);
}

TEST_CASE("malformed, negative, overflowing and unknown sizes are errors quoting the input", "[base][size]") {
    for (const char* bad : {"", "k", "KiB", "-1", "-1m", "+1", "1.", ".5k", "1.5.2", "64x", "64mm", "64kbb",
                            "64bi", "1e3", "1g ", " 1g", "ten", "1TB2", "16384p", "18446744073709551616",
                            "99999999999999999999", "18446744073709551615K", "1.0000000001"}) {
        INFO(bad);
        auto parsed = parse_size(bad);
        REQUIRE_FALSE(parsed);
        CHECK(parsed.error().message().find(std::string("\"") + bad + "\"") != std::string::npos);
    }
    CHECK(parse_size("-5").error().message().find("negative") != std::string::npos);
    CHECK(parse_size("5q").error().message().find("unknown unit \"q\"") != std::string::npos);
    CHECK(parse_size("16384p").error().message().find("too large") != std::string::npos);
}
