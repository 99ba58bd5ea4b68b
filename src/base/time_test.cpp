#include "base/time.hpp"

#include <catch2/catch.hpp>

using namespace husk;

TEST_CASE("an RFC 3339 time husk wrote reads back in microseconds", "[base]") {
    timespec ts{1795628446, 569206471};
    CHECK(parse_rfc3339_usec(rfc3339_nano(ts)) == 1795628446569206LL);
    CHECK(parse_rfc3339_usec("2026-11-25T17:40:46.569206471Z") == 1795628446569206LL);
    CHECK_FALSE(parse_rfc3339_usec(""));
    CHECK_FALSE(parse_rfc3339_usec("2026-11-25T17:40:46Z"));
    CHECK_FALSE(parse_rfc3339_usec("2026-11-25T17:40:46.5692064x1Z"));
}
