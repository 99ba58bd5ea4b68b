// `husk run --output-format json` (husk(8), OUTPUT FORMAT): husk's stdout carries JSON lines only, one per chunk
// the pump read ({"stream","t","data"}, base64 for bytes that are not UTF-8), then exactly one verdict line, the
// same object --verdict writes; with a cap, a timeout, a refusal. husk's own messages stay on its stderr.
#include <catch2/catch.hpp>

#include <signal.h>

#include <string>
#include <vector>

#include "harness.hpp"
#include "monitor_support.hpp"

using namespace husk::test;
using Catch::Matchers::Contains;

namespace {

std::string decode_base64(const std::string& text) {
    static const std::string alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    unsigned value = 0;
    int bits = 0;
    for (char c : text) {
        if (c == '=') break;
        auto at = alphabet.find(c);
        REQUIRE(at != std::string::npos);
        value = (value << 6) | static_cast<unsigned>(at);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out += static_cast<char>((value >> bits) & 0xff);
        }
    }
    return out;
}

// husk's stdout in json mode, read back: each stream's bytes joined in line order, and the verdict line.
struct Stream {
    std::vector<Json> lines;
    std::string out, err;  // the program's bytes, decoded
    int base64_lines = 0;
    Json verdict;          // the last line's "verdict"
    std::string verdict_text;  // ... as husk wrote it
};

Stream read_stream(const std::string& text) {
    Stream s;
    std::vector<std::string> raw = lines(text);
    REQUIRE_FALSE(raw.empty());
    REQUIRE(text.back() == '\n');
    double last_t = 0;
    for (std::size_t i = 0; i < raw.size(); ++i) {
        INFO("line " << i << ": " << raw[i]);
        Json line = Json::parse(raw[i]);
        // Every line has a stream and a time, and the times never go back (the pump stamps a chunk as it reads it).
        double t = line["t"].dbl();
        CHECK(t >= last_t);
        last_t = t;
        const std::string& stream = line["stream"].str();
        if (i + 1 == raw.size()) {
            REQUIRE(stream == "verdict");
            s.verdict = line["verdict"];
            const std::string prefix = "\"verdict\":";
            auto at = raw[i].find(prefix);
            s.verdict_text = raw[i].substr(at + prefix.size(), raw[i].size() - at - prefix.size() - 1);
        } else {
            REQUIRE((stream == "stdout" || stream == "stderr"));
            std::string data = line["data"].str();
            if (line.contains("encoding")) {
                CHECK(line["encoding"].str() == "base64");
                data = decode_base64(data);
                ++s.base64_lines;
            }
            CHECK_FALSE(data.empty());  // no empty chunks
            (stream == "stdout" ? s.out : s.err) += data;
        }
        s.lines.push_back(std::move(line));
    }
    return s;
}

std::string numbered(const std::string& prefix, int count) {
    std::string out;
    for (int i = 0; i < count; ++i) out += prefix + std::to_string(i) + "\n";
    return out;
}

}  // namespace

TEST_CASE("json: each stream's chunks in order, timed, then the verdict line, the same object as --verdict's file",
          "[integration][output-format]") {
    Sandbox sb;
    Bundle b = with_args(sb, {"/bin/sh", "-c",
                              "i=0; while [ $i -lt 300 ]; do echo out$i; echo err$i >&2; i=$((i+1)); done; exit 7"});
    std::string id = sb.id("json");
    std::string verdict = sb.dir() + "/verdict.json";
    Output run = sb.run(b, id, {"--output-format", "json", "--verdict", verdict});
    INFO(run.describe());
    CHECK(run.exit_code == 7);
    CHECK(run.err.empty());  // husk had nothing to say, and the program's stderr is in the stream
    Stream s = read_stream(run.out);
    CHECK(s.out == numbered("out", 300));
    CHECK(s.err == numbered("err", 300));
    CHECK(s.base64_lines == 0);
    std::string file = read_file(verdict);
    CHECK(s.verdict_text + "\n" == file);
    CHECK(s.verdict["exit"]["reason"].str() == "exited");
    CHECK(s.verdict["status"].num() == 7);
    CHECK(s.verdict["usage"]["stdoutBytes"].u64() == s.out.size());
    CHECK(s.verdict["usage"]["stderrBytes"].u64() == s.err.size());
    // The verdict line's t is at least the wall time the verdict counts.
    CHECK(s.lines.back()["t"].dbl() * 1000 >= static_cast<double>(s.verdict["wallTimeMs"].num()));
    check_nothing_left(sb);
}

TEST_CASE("json: bytes that are not UTF-8 come as base64 and decode to what was written; UTF-8 stays text",
          "[integration][output-format]") {
    Sandbox sb;
    std::string every_byte;  // printf's octal escapes for 0..255, twice
    for (int round = 0; round < 2; ++round)
        for (int byte = 0; byte < 256; ++byte) {
            char escape[8];
            std::snprintf(escape, sizeof escape, "\\%03o", byte);
            every_byte += escape;
        }
    Bundle b = with_args(sb, {"/bin/sh", "-c", "printf '" + every_byte + "'; printf 'h\\303\\251 \\342\\202\\254\\n' >&2"});
    Output run = sb.run(b, sb.id("binary"), {"--output-format", "json"});
    INFO(run.describe());
    CHECK(run.exit_code == 0);
    Stream s = read_stream(run.out);
    std::string expected;
    for (int round = 0; round < 2; ++round)
        for (int byte = 0; byte < 256; ++byte) expected += static_cast<char>(byte);
    CHECK(s.out == expected);
    CHECK(s.base64_lines >= 1);
    CHECK(s.err == "h\xc3\xa9 \xe2\x82\xac\n");
    for (const Json& line : s.lines)
        if (line["stream"].str() == "stderr") CHECK_FALSE(line.contains("encoding"));
    check_nothing_left(sb);
}

TEST_CASE("json with an output cap: exactly the cap's bytes in the stream, then the verdict says output-limit",
          "[integration][output-format]") {
    Sandbox sb;
    Bundle b = with_args(sb, {"/probe", "spam", "100000000"});
    Output run = sb.run(b, sb.id("capped"), {"--output-format", "json", "--output-limit", "64k"});
    INFO(run.describe());
    CHECK(run.exit_code == 128 + SIGKILL);
    Stream s = read_stream(run.out);
    CHECK(s.out.size() == 65536);
    CHECK(s.out == std::string(65536, 'x'));
    CHECK(s.err.empty());
    CHECK(s.verdict["exit"]["reason"].str() == "output-limit");
    CHECK(s.verdict["usage"]["stdoutBytes"].num() == 65536);
    CHECK(s.verdict["limits"]["outputLimitBytes"].num() == 65536);
    check_nothing_left(sb);
}

TEST_CASE("json with a timeout: what was written before it, then the verdict says timeout",
          "[integration][output-format]") {
    Sandbox sb;
    Bundle b = with_args(sb, {"/bin/sh", "-c", "echo before; exec sleep 100"});
    Output run = sb.run(b, sb.id("timeout"), {"--output-format", "json", "--timeout", "500ms", "--kill-grace", "0"});
    INFO(run.describe());
    CHECK(run.exit_code == 128 + SIGKILL);
    Stream s = read_stream(run.out);
    CHECK(s.out == "before\n");
    CHECK(s.verdict["exit"]["reason"].str() == "timeout");
    CHECK(s.lines.back()["t"].dbl() >= 0.5);
    check_nothing_left(sb);
}

TEST_CASE("json: a refusal is one verdict line on stdout, reason refused, and husk's message on stderr",
          "[integration][output-format]") {
    Sandbox sb;
    Bundle b = with_args(sb, {"/bin/true"});
    std::vector<std::string> flags = {"--output-format", "json"};
    std::string expected_detail;
    SECTION("a config husk refuses") {
        b.config["annotations"]["run.husk.no-such-limit"] = "1";
        expected_detail = "run.husk.no-such-limit";
    }
    SECTION("process.terminal, which merges the streams") {
        b.config["process"]["terminal"] = true;
        expected_detail = "process.terminal is true: --output-format json";
    }
    SECTION("a flag husk refuses") {
        flags.insert(flags.end(), {"--timeout", "0"});
        expected_detail = "--timeout";
    }
    SECTION("a command line that does not parse") {
        flags.push_back("--no-such-flag");
        expected_detail = "no-such-flag";
    }
    SECTION("--detach") {
        flags.push_back("--detach");
        expected_detail = "--output-format json needs a foreground run";
    }
    Output run = sb.run(b, sb.id("refused"), flags);
    INFO(run.describe());
    CHECK(run.exit_code != 0);
    REQUIRE(lines(run.out).size() == 1);
    Stream s = read_stream(run.out);
    CHECK(s.lines.back()["t"].dbl() == 0);
    CHECK(s.verdict["exit"]["reason"].str() == "refused");
    CHECK(s.verdict["status"].num() == run.exit_code);
    CHECK_THAT(s.verdict["exit"]["detail"].str(), Contains(expected_detail));
    CHECK_THAT(run.err, Contains(expected_detail));
    check_nothing_left(sb);
}

TEST_CASE("json: a reader that goes away takes the lines, not husk's status: husk ends with the program's",
          "[integration][output-format]") {
    Sandbox sb;
    // ~2000 lines are more than a pipe holds, so husk is still writing when the reader (head) has gone: its
    // next lines, the verdict line and the warning about it (stderr is the same pipe) all meet EPIPE.
    Bundle b = with_args(sb, {"/bin/sh", "-c", "i=0; while [ $i -lt 2000 ]; do echo line-$i; i=$((i+1)); done; exit 3"});
    b.write();
    // The wrapper writes husk's status to a file: the pipeline's own status is head's.
    std::string status_file = sb.dir() + "/status";
    std::vector<std::string> argv = {"/bin/sh", "-c", "{ \"$@\" 2>&1; echo $? >\"$STATUS\"; } | head -n 1 >/dev/null",
                                     "sh", paths().husk, "--root", sb.root(), "run", "--output-format", "json",
                                     "--bundle", b.dir, sb.id("gone")};
    SpawnOptions options;
    options.env = {"STATUS=" + status_file};
    Output run = sb.command(argv, options);
    INFO(run.describe());
    CHECK(read_file(status_file) == "3\n");  // not 141: killed by SIGPIPE
    check_nothing_left(sb);
}

TEST_CASE("--message-fd: husk's own messages go to that fd, and husk's stderr is the program's alone",
          "[integration][output-format][messages]") {
    Sandbox sb;
    Bundle b = with_args(sb, {"/bin/sh", "-c", "echo from-the-program >&2"});
    // A failing poststart hook is a warning husk prints while the program runs.
    b.config["hooks"]["poststart"] = Json::array({Json::object({{"path", "/bin/false"}})});
    std::string messages = sb.dir() + "/messages";
    SpawnOptions options;
    options.env = {"MESSAGES=" + messages};
    std::vector<std::string> argv = {"/bin/sh", "-c", "exec \"$@\" 3>>\"$MESSAGES\"", "sh", paths().husk,
                                     "--root", sb.root(), "--message-fd", "3", "run", "--bundle", b.dir};
    SECTION("a run with a warning") {
        b.write();
        argv.push_back(sb.id("messages"));
        Output run = sb.command(argv, options);
        INFO(run.describe());
        CHECK(run.exit_code == 0);
        CHECK(run.err == "from-the-program\n");
        CHECK_THAT(read_file(messages), Contains("husk: warning: run ") && Contains("poststart hook"));
    }
    SECTION("a command line husk refuses") {
        argv.insert(argv.end(), {"--no-such-flag", sb.id("refused")});
        Output run = sb.command(argv, options);
        INFO(run.describe());
        CHECK(run.exit_code == 2);
        CHECK(run.err.empty());
        CHECK_THAT(read_file(messages), Contains("husk: run: ") && Contains("no-such-flag"));
    }
    SECTION("an fd that is not open, or stdout") {
        for (const char* fd : {"9", "1"}) {
            Output run = sb.husk({"--message-fd", fd, "state", "x"});
            INFO(run.describe());
            CHECK(run.exit_code == 2);
            CHECK(run.out.empty());
            CHECK_THAT(run.err, Contains(std::string("--message-fd ") + fd));
        }
    }
    check_nothing_left(sb);
}
