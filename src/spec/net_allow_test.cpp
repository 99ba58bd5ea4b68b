#include "spec/net_allow.hpp"

#include <catch2/catch.hpp>

#include "spec/settings.hpp"

using namespace husk::spec;

namespace {

std::string round_trip(std::string_view text) {
    auto entry = parse_net_allow_entry(text);
    if (!entry) return "error: " + entry.error().message();
    return to_string(*entry);
}

std::string error_of(std::string_view text) {
    auto parsed = parse_net_allow(text);
    return parsed ? std::string("(accepted)") : parsed.error().message();
}

}  // namespace

TEST_CASE("net-allow entries take IPv4 and IPv6 prefixes with or without a port", "[spec][net-allow]") {
    CHECK(round_trip("10.0.0.0/8") == "10.0.0.0/8");
    CHECK(round_trip("10.0.0.1/32:53") == "10.0.0.1/32:53");
    CHECK(round_trip("10.0.0.1") == "10.0.0.1/32");
    CHECK(round_trip("10.0.0.1:443") == "10.0.0.1/32:443");
    CHECK(round_trip("0.0.0.0/0") == "0.0.0.0/0");
    CHECK(round_trip("::1/128") == "::1/128");
    CHECK(round_trip("::1") == "::1/128");
    CHECK(round_trip("[fd00::/8]:443") == "[fd00::/8]:443");
    CHECK(round_trip("[::1]:53") == "[::1/128]:53");
    CHECK(round_trip("[2001:db8::/32]") == "2001:db8::/32");
    CHECK(round_trip("::/0") == "::/0");
    CHECK(round_trip("[::ffff:10.0.0.1/128]:80") == "[::ffff:10.0.0.1/128]:80");

    auto entry = parse_net_allow_entry("192.168.1.0/24:8080").value();
    CHECK(entry.family == NetAllowEntry::Family::ipv4);
    CHECK(entry.prefix == 24);
    CHECK(entry.port == 8080);
    CHECK(entry.address[0] == 192);
    CHECK(entry.address[2] == 1);
    CHECK(entry.address[3] == 0);
}

TEST_CASE("net-allow lists are comma-separated, or none", "[spec][net-allow]") {
    auto list = parse_net_allow("127.0.0.1/32:80, ::1/128,10.0.0.0/8").value();
    REQUIRE(list.entries.size() == 3);
    CHECK(to_string(list.entries[1]) == "::1/128");
    CHECK(parse_net_allow("none").value().entries.empty());
    CHECK(parse_net_allow(" none ").value().entries.empty());
}

TEST_CASE("bad net-allow input gets an error naming the entry and what is wrong", "[spec][net-allow]") {
    using Catch::Matchers::Contains;
    CHECK_THAT(error_of(""), Contains("empty network allow entry"));
    CHECK_THAT(error_of("10.0.0.1,,10.0.0.2"), Contains("empty network allow entry"));
    CHECK_THAT(error_of("10.0.0.1,"), Contains("empty network allow entry"));
    CHECK_THAT(error_of("none,10.0.0.1"), Contains("cannot stand beside"));
    CHECK_THAT(error_of("10.0.0.256/32"), Contains("\"10.0.0.256\" is not an IPv4 address"));
    CHECK_THAT(error_of("example.com:443"), Contains("\"example.com\" is not an IPv4 address"));
    CHECK_THAT(error_of("10.0.0.1/33"), Contains("prefix length \"33\" is not a number from 0 to 32"));
    CHECK_THAT(error_of("::1/129"), Contains("from 0 to 128"));
    CHECK_THAT(error_of("10.0.0.1/"), Contains("prefix length \"\""));
    CHECK_THAT(error_of("10.0.0.1/8"), Contains("bits past the prefix length are set"));
    CHECK_THAT(error_of("fd00::1/8"), Contains("bits past the prefix length are set"));
    CHECK_THAT(error_of("10.0.0.1:0"), Contains("port \"0\" is not a number from 1 to 65535"));
    CHECK_THAT(error_of("10.0.0.1:65536"), Contains("port \"65536\""));
    CHECK_THAT(error_of("10.0.0.1:http"), Contains("port \"http\""));
    CHECK_THAT(error_of("10.0.0.1/32:-1"), Contains("port \"-1\""));
    CHECK_THAT(error_of("[::1/128]443"), Contains("want :PORT after ]"));
    CHECK_THAT(error_of("[::1/128"), Contains("no ] after ["));
    CHECK_THAT(error_of("[10.0.0.1]:80"), Contains("brackets are for IPv6"));
    CHECK_THAT(error_of("fe80::1%eth0"), Contains("is not an IPv6 address"));
    CHECK_THAT(error_of("10.0.0.1"), Contains("(accepted)"));
    // Every message shows the accepted forms.
    CHECK_THAT(error_of("bogus"), Contains("want CIDR[:PORT]"));
}

TEST_CASE("the net annotations are read, and a kill without a budget is refused by the settings check", "[spec][net-allow]") {
    auto parsed = parse_husk_annotations({{"run.husk.net-allow", "127.0.0.1/32:80"},
                                          {"run.husk.net-ops", "5"},
                                          {"run.husk.net-ops-kill", "true"}});
    REQUIRE(parsed);
    REQUIRE(parsed->net_allow);
    CHECK(parsed->net_allow->entries.size() == 1);
    CHECK(parsed->net_ops == 5u);
    CHECK(parsed->net_ops_kill);

    auto none = parse_husk_annotations({{"run.husk.net-allow", "none"}});
    REQUIRE(none);
    REQUIRE(none->net_allow);
    CHECK(none->net_allow->entries.empty());

    for (const char* bad : {"0", "-1", "", "1k", "1.5", "99999999999999999999999"}) {
        INFO(bad);
        auto refused = parse_husk_annotations({{"run.husk.net-ops", bad}});
        REQUIRE_FALSE(refused);
        CHECK_THAT(refused.error().message(), Catch::Matchers::Contains("annotations[\"run.husk.net-ops\"]"));
    }
    auto kill_alone = husk::spec::check_settings(parse_husk_annotations({{"run.husk.net-ops-kill", "true"}}).value());
    REQUIRE_FALSE(kill_alone);
    CHECK_THAT(kill_alone.error().message(), Catch::Matchers::Contains("needs a budget"));
    auto bad_entry = parse_husk_annotations({{"run.husk.net-allow", "10.0.0.1/8"}});
    REQUIRE_FALSE(bad_entry);
    CHECK_THAT(bad_entry.error().message(), Catch::Matchers::Contains("annotations[\"run.husk.net-allow\"]: network allow entry"));
}
