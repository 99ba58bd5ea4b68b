#include "base/duration.hpp"

#include <catch2/catch.hpp>

using namespace std::chrono_literals;
using husk::format_duration;
using husk::parse_duration;

TEST_CASE("durations take a number and a unit, decimals included", "[base]") {
    CHECK(parse_duration("30s").value() == 30s);
    CHECK(parse_duration("500ms").value() == 500ms);
    CHECK(parse_duration("2m").value() == 2min);
    CHECK(parse_duration("1h").value() == 1h);
    CHECK(parse_duration("250us").value() == 250us);
    CHECK(parse_duration("1.5s").value() == 1500ms);
    CHECK(parse_duration("0.001s").value() == 1ms);
    CHECK(parse_duration("0").value() == 0us);
    CHECK(parse_duration("0s").value() == 0us);
}

TEST_CASE("malformed durations are errors quoting the input", "[base]") {
    for (const char* bad : {"", "10", "s", "-1s", "1.s", ".5s", "1 s", "1sec", "1e3ms", "1.5.2s", "12x"}) {
        INFO(bad);
        auto parsed = parse_duration(bad);
        REQUIRE_FALSE(parsed);
        CHECK(parsed.error().message().find(std::string("\"") + bad + "\"") != std::string::npos);
    }
    CHECK_FALSE(parse_duration("99999999999999999h"));
}

TEST_CASE("a duration is written in the largest unit that holds it exactly, and reads back the same", "[base]") {
    CHECK(format_duration(0us) == "0");
    CHECK(format_duration(30s) == "30s");
    CHECK(format_duration(1500ms) == "1500ms");
    CHECK(format_duration(2min) == "2m");
    CHECK(format_duration(90min) == "90m");
    CHECK(format_duration(2h) == "2h");
    CHECK(format_duration(1001us) == "1001us");
    using std::chrono::microseconds;
    for (microseconds d : {microseconds(1us), microseconds(999us), microseconds(1ms), microseconds(61s),
                           microseconds(3601s), microseconds(1h + 1us), microseconds(std::chrono::hours(100000))}) {
        INFO(d.count());
        CHECK(parse_duration(format_duration(d)).value() == d);
    }
}
