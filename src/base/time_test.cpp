#include "base/time.hpp"

#include <catch2/catch.hpp>
#include <cstdio>
#include <ctime>

using namespace husk;

TEST_CASE("an RFC 3339 time husk wrote reads back in microseconds", "[base]") {
    timespec ts{1795628446, 569206471};
    CHECK(parse_rfc3339_usec(rfc3339_nano(ts)) == 1795628446569206LL);
    CHECK(parse_rfc3339_usec("2026-11-25T17:40:46.569206471Z") == 1795628446569206LL);
    CHECK_FALSE(parse_rfc3339_usec(""));
    CHECK_FALSE(parse_rfc3339_usec("2026-11-25T17:40:46Z"));
    CHECK_FALSE(parse_rfc3339_usec("2026-11-25T17:40:46.5692064x1Z"));
}

TEST_CASE("rfc3339_nano writes what the printf format %04d-%02d-%02dT%02d:%02d:%02d.%09ldZ writes", "[base]") {
    for (const timespec ts : {timespec{0, 0}, timespec{1795628446, 569206471}, timespec{951782400, 999999999},
                              timespec{253402300799, 1}, timespec{253402300800, 5}, timespec{-1, 7}}) {
        tm utc{};
        gmtime_r(&ts.tv_sec, &utc);
        char expected[64];
        std::snprintf(expected, sizeof expected, "%04d-%02d-%02dT%02d:%02d:%02d.%09ldZ", utc.tm_year + 1900,
                      utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec, ts.tv_nsec);
        CHECK(husk::rfc3339_nano(ts) == expected);
    }
}
