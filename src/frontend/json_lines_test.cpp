#include "frontend/json_lines.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "base/fs.hpp"

using namespace husk::frontend;

namespace {

// The data member of each line `encode`/`finish` appended, with "b64:" before a base64 one.
std::string datas(const std::string& lines) {
    std::string out;
    std::size_t at = 0;
    while ((at = lines.find("\"data\":\"", at)) != std::string::npos) {
        at += 8;
        std::size_t end = lines.find('"', at);
        bool base64 = lines.compare(end, 24, "\",\"encoding\":\"base64\"}\n") == 0;
        out += (base64 ? "b64:" : "") + lines.substr(at, end - at) + "|";
        at = end;
    }
    return out;
}

}  // namespace

TEST_CASE("scan_utf8 accepts well-formed UTF-8 and stops at the first byte that is not", "[monitor][json-lines]") {
    CHECK(scan_utf8("plain ascii").valid == 11);
    CHECK(scan_utf8("h\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80").valid == 12);  // é € 😀
    CHECK(scan_utf8("").valid == 0);
    // Overlong forms, surrogates, past U+10FFFF, stray continuation bytes, bytes never in UTF-8.
    for (std::string bad : {"\xc0\xaf", "\xc1\xbf", "\xe0\x80\xaf", "\xed\xa0\x80", "\xf0\x80\x80\xaf",
                            "\xf4\x90\x80\x80", "\x80", "\xbf", "\xf5\x80\x80\x80", "\xfe", "\xff",
                            "\xc3\x28", "\xe2\x28\xa1"}) {
        INFO("bad: " << bad.size() << " bytes");
        Utf8Prefix p = scan_utf8("ok" + bad);
        CHECK(p.valid == 2);
        CHECK_FALSE(p.cut_at_end);
    }
    CHECK(scan_utf8("\xf4\x8f\xbf\xbf").valid == 4);  // U+10FFFF, the last code point
    CHECK(scan_utf8("\xed\x9f\xbf").valid == 3);      // U+D7FF, just below the surrogates
}

TEST_CASE("scan_utf8 tells a character cut off by the end of the data from a bad one", "[monitor][json-lines]") {
    for (std::string cut : {"\xc3", "\xe2", "\xe2\x82", "\xf0\x9f", "\xf0\x9f\x98"}) {
        Utf8Prefix p = scan_utf8("ab" + cut);
        CHECK(p.valid == 2);
        CHECK(p.cut_at_end);
    }
    // A start that can never become a character is not "cut": E0 80 is overlong already.
    CHECK_FALSE(scan_utf8("ab\xe0\x80").cut_at_end);
    CHECK_FALSE(scan_utf8("ab\xed\xa0").cut_at_end);
}

TEST_CASE("a chunk line escapes what JSON requires and keeps the rest of UTF-8 as it is", "[monitor][json-lines]") {
    std::string line;
    append_chunk_line(line, "stdout", 1.5, std::string("a\"b\\c\n\t\x01\x7f\xc3\xa9\0z", 13), false);
    CHECK(line == "{\"stream\":\"stdout\",\"t\":1.500000,\"data\":\"a\\\"b\\\\c\\n\\t\\u0001\x7f\xc3\xa9\\u0000z\"}\n");
}

TEST_CASE("a chunk line in base64 pads as RFC 4648 says", "[monitor][json-lines]") {
    auto data_of = [](std::string_view bytes) {
        std::string line;
        append_chunk_line(line, "stderr", 0, bytes, true);
        return datas(line);
    };
    CHECK(data_of("\xff") == "b64:/w==|");
    CHECK(data_of("\xff\xfe") == "b64://4=|");
    CHECK(data_of("\xff\xfe\xfd") == "b64://79|");
    CHECK(data_of("foobar") == "b64:Zm9vYmFy|");
}

TEST_CASE("the verdict line wraps the verdict object as it is", "[monitor][json-lines]") {
    std::string line;
    append_verdict_line(line, 0.25, "{\"id\":\"x\"}");
    CHECK(line == "{\"stream\":\"verdict\",\"t\":0.250000,\"verdict\":{\"id\":\"x\"}}\n");
}

TEST_CASE("a character split between two reads stays text: its start is carried to the next chunk",
          "[monitor][json-lines]") {
    ChunkEncoder encoder;
    std::string out;
    CHECK(encoder.encode(out, "stdout", 0, "price: \xe2\x82") == 7);  // "price: " now, the € waits
    CHECK(encoder.encode(out, "stdout", 0, "\xac!") == 4);
    CHECK(datas(out) == "price: |\xe2\x82\xac!|");
    // A read that is only the start of a character makes no line at all.
    out.clear();
    CHECK(encoder.encode(out, "stdout", 0, "\xf0") == 0);
    CHECK(out.empty());
    CHECK(encoder.encode(out, "stdout", 0, "\x9f\x98") == 0);
    CHECK(encoder.encode(out, "stdout", 0, "\x80") == 4);
    CHECK(datas(out) == "\xf0\x9f\x98\x80|");
}

TEST_CASE("a chunk with bytes that are not UTF-8 goes out whole as base64, with what was carried",
          "[monitor][json-lines]") {
    ChunkEncoder encoder;
    std::string out;
    CHECK(encoder.encode(out, "stdout", 0, "ok\xc3") == 2);
    CHECK(encoder.encode(out, "stdout", 0, std::string("\xff\x00x", 3)) == 4);  // C3 FF is not a character
    CHECK(datas(out) == "ok|b64:w/8AeA==|");
    // And the encoder is clean after it: the next text chunk is text.
    out.clear();
    CHECK(encoder.encode(out, "stdout", 0, "fine") == 4);
    CHECK(datas(out) == "fine|");
}

TEST_CASE("bytes still carried when the stream ends go out as base64", "[monitor][json-lines]") {
    ChunkEncoder encoder;
    std::string out;
    encoder.encode(out, "stderr", 0, "end\xe2\x82");
    CHECK(encoder.finish(out, "stderr", 0) == 2);
    CHECK(datas(out) == "end|b64:4oI=|");
    out.clear();
    CHECK(encoder.finish(out, "stderr", 0) == 0);  // nothing twice
    CHECK(out.empty());
}

TEST_CASE("JsonLineOutput holds a line a full output did not take, and counts bytes once their line is out",
          "[monitor][json-lines]") {
    auto pipe = husk::open_pipe();
    REQUIRE(pipe);
    REQUIRE(::fcntl(pipe->write_end.get(), F_SETFL, O_NONBLOCK) == 0);
    REQUIRE(::fcntl(pipe->write_end.get(), F_SETPIPE_SZ, 4096) == 4096);
    int reader = pipe->read_end.get();
    JsonLineOutput output(std::move(pipe->write_end), std::chrono::steady_clock::now());
    output.chunk(0, std::string(3000, 'a'));
    CHECK(output.flush() == JsonLineOutput::Flush::done);
    CHECK(output.delivered(0) == 3000);
    output.chunk(1, std::string(3000, 'b'));  // more than the pipe has room for now
    CHECK(output.busy());
    CHECK(output.flush() == JsonLineOutput::Flush::blocked);
    CHECK(output.delivered(1) == 0);  // its line is not out whole
    std::string got(8192, '\0');
    ssize_t n = ::read(reader, got.data(), got.size());
    REQUIRE(n > 0);
    got.resize(static_cast<std::size_t>(n));
    CHECK(output.flush() == JsonLineOutput::Flush::done);
    CHECK_FALSE(output.busy());
    CHECK(output.delivered(1) == 3000);
    REQUIRE(::fcntl(reader, F_SETFL, O_NONBLOCK) == 0);  // the write end stays open: read what is there
    char rest[8192];
    for (ssize_t more; (more = ::read(reader, rest, sizeof rest)) > 0;) got.append(rest, static_cast<std::size_t>(more));
    std::vector<std::string> lines;
    for (std::size_t at = 0, end; (end = got.find('\n', at)) != std::string::npos; at = end + 1)
        lines.push_back(got.substr(at, end - at));
    REQUIRE(lines.size() == 2);
    CHECK(lines[0].find("\"stream\":\"stdout\"") != std::string::npos);
    CHECK(lines[1].find("\"stream\":\"stderr\"") != std::string::npos);
    CHECK(lines[1].find(std::string(3000, 'b')) != std::string::npos);
}
