#include "ttrpc/frame.hpp"

#include <catch2/catch.hpp>
#include <string>

#include "ttrpc/test_bytes.hpp"

using namespace husk::ttrpc;

// The golden payloads were made with Debian's python3-protobuf 3.21 from messages declared as in ttrpc 1.1.1's
// types.go and google/rpc/status.proto (Request, KeyValue, Response, Status): SerializeToString().hex().

TEST_CASE("a frame is a big-endian length and stream id, the type, zero flags and the payload", "[ttrpc]") {
    CHECK(encode_frame(3, FrameType::response, "ab") == from_hex("00000002" "00000003" "02" "00" "6162"));
    CHECK(encode_frame(0x01020304, FrameType::request, "") == from_hex("00000000" "01020304" "01" "00"));
}

TEST_CASE("a frame fed one byte at a time comes out whole, once", "[ttrpc]") {
    std::string wire = from_hex("00000003" "00000007" "01" "05" "78797a");
    FrameReader reader;
    for (std::size_t i = 0; i < wire.size(); ++i) {
        CHECK(!reader.next());
        reader.feed(wire.substr(i, 1));
    }
    CHECK(reader.buffered() == 3);
    auto frame = reader.next();
    REQUIRE(frame);
    CHECK(frame->stream == 7);
    CHECK(frame->type == 1);
    CHECK(frame->flags == 5);
    CHECK(frame->payload == "xyz");
    CHECK(!frame->oversized);
    CHECK(!reader.next());
    CHECK(reader.buffered() == 0);
}

TEST_CASE("two frames in one feed come out in order, with an empty one between", "[ttrpc]") {
    FrameReader reader;
    reader.feed(encode_frame(1, FrameType::request, "one") + encode_frame(3, FrameType::request, "") +
                encode_frame(5, FrameType::response, "three") + encode_frame(7, FrameType::request, "par").substr(0, 12));
    auto a = reader.next(), b = reader.next(), c = reader.next();
    REQUIRE((a && b && c));
    CHECK((a->stream == 1 && a->payload == "one"));
    CHECK((b->stream == 3 && b->payload.empty()));
    CHECK((c->stream == 5 && c->type == 2 && c->payload == "three"));
    CHECK(!reader.next());
    CHECK(reader.buffered() == 2);
}

TEST_CASE("an oversized frame is skipped without being held, and the next frame still comes out", "[ttrpc]") {
    FrameReader reader;
    std::uint32_t length = max_message + 1;
    std::string header = from_hex("00400001" "00000009" "01" "00");
    reader.feed(header);
    CHECK(!reader.next());
    std::string chunk(64 * 1024, 'z');
    std::size_t left = length;
    while (left > chunk.size()) {
        reader.feed(chunk);
        left -= chunk.size();
        CHECK(reader.buffered() == 0);
    }
    CHECK(!reader.next());
    reader.feed(chunk.substr(0, left) + encode_frame(11, FrameType::request, "ok"));
    auto skipped = reader.next();
    REQUIRE(skipped);
    CHECK(skipped->oversized);
    CHECK(skipped->stream == 9);
    CHECK(skipped->type == 1);
    CHECK(skipped->payload.empty());
    auto next = reader.next();
    REQUIRE(next);
    CHECK(!next->oversized);
    CHECK(next->stream == 11);
    CHECK(next->payload == "ok");
}

TEST_CASE("a frame of exactly max_message bytes is not oversized", "[ttrpc]") {
    FrameReader reader;
    reader.feed(encode_frame(1, FrameType::request, std::string(max_message, 'a')));
    auto frame = reader.next();
    REQUIRE(frame);
    CHECK(!frame->oversized);
    CHECK(frame->payload.size() == max_message);
}

TEST_CASE("a request decodes from protobuf's own encoding and encodes back to it", "[ttrpc]") {
    std::string golden = from_hex(
        "0a17636f6e7461696e6572642e7461736b2e76322e5461736b12044b696c6c1a040a02633120ffffffffffffffffff012a060a016b"
        "1201762a00");
    auto request = decode_request(golden);
    REQUIRE(request);
    CHECK(request->service == "containerd.task.v2.Task");
    CHECK(request->method == "Kill");
    CHECK(request->payload == from_hex("0a026331"));
    CHECK(request->timeout_nano == -1);
    REQUIRE(request->metadata.size() == 2);
    CHECK(request->metadata[0] == std::pair<std::string, std::string>("k", "v"));
    CHECK(request->metadata[1] == std::pair<std::string, std::string>("", ""));
    CHECK(encode_request(*request) == golden);
}

TEST_CASE("a request names the field of a wrong wire type, and skips unknown fields", "[ttrpc]") {
    CHECK(decode_request(from_hex("0801")).error().what == std::string("Request.service: expected length-delimited"));
    CHECK(decode_request(from_hex("2a020801")).error().what ==
          std::string("Request.metadata: KeyValue.key: expected length-delimited"));
    CHECK(decode_request(from_hex("0a05")).error().what ==
          std::string("Request: field 1: length 5 at offset 1 runs past the end (0 bytes left)"));
    auto request = decode_request(from_hex("3001" "0a0161" "3a00"));
    REQUIRE(request);
    CHECK(request->service == "a");
}

TEST_CASE("a response encodes as protobuf does, with no status when all went well", "[ttrpc]") {
    CHECK(encode_response({Code::ok, "", from_hex("082a")}) == from_hex("1202082a"));
    CHECK(encode_response({Code::not_found, "container c1 not found", ""}) ==
          from_hex("0a1a08051216636f6e7461696e6572206331206e6f7420666f756e64"));
    CHECK(encode_response({Code::internal, "", "x"}) == from_hex("0a02080d120178"));
    CHECK(encode_response({}).empty());
}

TEST_CASE("a response decodes back, status and payload", "[ttrpc]") {
    auto response = decode_response(from_hex("0a1a08051216636f6e7461696e6572206331206e6f7420666f756e64"));
    REQUIRE(response);
    CHECK(response->code == Code::not_found);
    CHECK(response->message == "container c1 not found");
    auto ok = decode_response(from_hex("1202082a"));
    REQUIRE(ok);
    CHECK(ok->code == Code::ok);
    CHECK(ok->payload == from_hex("082a"));
    CHECK(decode_response(from_hex("0a021201")).error().what ==
          std::string("Response.status: Status: field 2: length 1 at offset 1 runs past the end (0 bytes left)"));
}
