#include "ttrpc/protobuf.hpp"

#include <catch2/catch.hpp>
#include <string>

#include "ttrpc/test_bytes.hpp"

using namespace husk::ttrpc;

namespace {

// Every field of `data`, or the reader's error message.
std::string read_error(std::string_view data) {
    ProtoReader reader(data);
    for (;;) {
        auto field = reader.next();
        if (!field) return field.error().what;
        if (!*field) return "";
    }
}

}  // namespace

TEST_CASE("the writer leaves out proto3 defaults but always writes sub-messages and repeated strings", "[ttrpc]") {
    ProtoWriter out;
    out.uint(1, 0);
    out.int64(2, 0);
    out.boolean(3, false);
    out.string(4, "");
    CHECK(out.data().empty());
    out.message(5, "");
    out.string_always(6, "");
    CHECK(out.data() == from_hex("2a003200"));
}

TEST_CASE("the writer encodes varints, negative numbers in ten bytes, and long field numbers", "[ttrpc]") {
    ProtoWriter out;
    out.uint(1, 150);
    out.int64(2, -1);
    out.boolean(3, true);
    out.uint(536870911, 1);
    // 150 is 96 01 (the protobuf encoding guide's example); -1 is nine ff then 01.
    CHECK(out.take() == from_hex("089601" "10ffffffffffffffffff01" "1801" "f8ffffff0f01"));
}

TEST_CASE("the reader returns each field with its wire type and value", "[ttrpc]") {
    std::string data = from_hex("089601" "1203616263" "19" "0102030405060708" "25" "0a0b0c0d");
    ProtoReader reader(data);
    auto a = reader.next();
    REQUIRE(a);
    REQUIRE(*a);
    CHECK((*a)->number == 1);
    CHECK((*a)->type == WireType::varint);
    CHECK(*uint_of(**a) == 150);
    auto b = reader.next();
    REQUIRE((b && *b));
    CHECK(*bytes_of(**b) == "abc");
    auto c = reader.next();
    REQUIRE((c && *c));
    CHECK((*c)->type == WireType::fixed64);
    CHECK((*c)->value == 0x0807060504030201ull);
    auto d = reader.next();
    REQUIRE((d && *d));
    CHECK((*d)->type == WireType::fixed32);
    CHECK((*d)->value == 0x0d0c0b0aull);
    auto end = reader.next();
    REQUIRE(end);
    CHECK(!*end);
}

TEST_CASE("the reader round-trips what the writer wrote", "[ttrpc]") {
    ProtoWriter out;
    out.int64(4, -42);
    out.string(7, std::string(300, 'x'));
    ProtoReader reader(out.data());
    auto a = reader.next();
    REQUIRE((a && *a));
    CHECK(static_cast<std::int64_t>(*uint_of(**a)) == -42);
    auto b = reader.next();
    REQUIRE((b && *b));
    CHECK((*b)->number == 7);
    CHECK(bytes_of(**b)->size() == 300);
}

TEST_CASE("the reader names every malformed input and its offset", "[ttrpc]") {
    CHECK(read_error("") == "");
    CHECK(read_error(from_hex("0880")) == "truncated varint at offset 1");
    CHECK(read_error(from_hex("80")) == "truncated field key at offset 0");
    CHECK(read_error(from_hex("08ffffffffffffffffffff01")) == "varint longer than 10 bytes at offset 1");
    CHECK(read_error(from_hex("0a")) == "truncated length at offset 1");
    CHECK(read_error(from_hex("0a0561")) == "field 1: length 5 at offset 1 runs past the end (1 bytes left)");
    CHECK(read_error(from_hex("0affffffffffffffffff01")) ==
          "field 1: length 18446744073709551615 at offset 1 runs past the end (0 bytes left)");
    CHECK(read_error(from_hex("0900")) == "field 1: truncated fixed64 at offset 1");
    CHECK(read_error(from_hex("0d000000")) == "field 1: truncated fixed32 at offset 1");
    CHECK(read_error(from_hex("0001")) == "field number 0 out of range at offset 0");
    CHECK(read_error(from_hex("8080808010")) == "field number 536870912 out of range at offset 0");
    CHECK(read_error(from_hex("0b")) == "field 1: group wire type 3 (not in proto3) at offset 0");
    CHECK(read_error(from_hex("0c")) == "field 1: group wire type 4 (not in proto3) at offset 0");
    CHECK(read_error(from_hex("0e")) == "field 1: invalid wire type 6 at offset 0");
    CHECK(read_error(from_hex("0f")) == "field 1: invalid wire type 7 at offset 0");
}

TEST_CASE("typed access refuses a field of another wire type", "[ttrpc]") {
    ProtoField text{3, WireType::bytes, 0, "x"};
    ProtoField number{3, WireType::varint, 0x1'0000'0002ull, {}};
    CHECK(uint_of(text).error().what == std::string("field 3: expected varint"));
    CHECK(bool_of(text).error().what == std::string("field 3: expected varint"));
    CHECK(uint32_of(text, "KillRequest.signal").error().what == std::string("KillRequest.signal: expected varint"));
    CHECK(bytes_of(number).error().what == std::string("field 3: expected length-delimited"));
    CHECK(*uint32_of(number) == 2);
    CHECK(*bool_of(number));
}
