// `--output-format json` (docs/husk.8.md, OUTPUT FORMAT): the program's stdout and stderr as JSON lines on husk's
// stdout, one per chunk the output pump reads, then the verdict as the last line. One reader gets both streams, in
// the order the pump read them, each chunk timed, and binary output survives (base64).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "husk/error.hpp"
#include "monitor/output_limit.hpp"
#include "monitor/output_pump.hpp"
#include "monitor/output_sink.hpp"

namespace husk::frontend {

// How the program's output reaches husk's stdout/stderr: as it is, or framed as JSON lines on stdout alone.
enum class OutputFormat { text, json };

// The longest prefix of `data` that is well-formed UTF-8 (RFC 3629 / Unicode table 3-7: no overlong forms, no
// surrogates, nothing past U+10FFFF), and whether what follows it is only the start of a character cut off by
// the end of `data` (1 to 3 bytes that can still become a character).
struct Utf8Prefix {
    std::size_t valid = 0;
    bool cut_at_end = false;
};
Utf8Prefix scan_utf8(std::string_view data);

// Appends {"stream":STREAM,"t":T,"data":...} and a newline; `base64` adds "encoding":"base64".
void append_chunk_line(std::string& out, std::string_view stream, double t, std::string_view data, bool base64);
// Appends {"stream":"verdict","t":T,"verdict":VERDICT} and a newline; `verdict_json` is already encoded.
void append_verdict_line(std::string& out, double t, std::string_view verdict_json);

// One stream's chunks as lines. A read may end inside a multi-byte character: those 1-3 bytes are carried to the
// next chunk of the same stream, so UTF-8 text stays text however the pump's reads fall. A chunk holding bytes
// that are not UTF-8 goes out whole (with what was carried) as base64; so do bytes still carried at the end.
class ChunkEncoder {
public:
    // Appends the line for `data` (none when all of it is carried); returns the bytes of output it holds.
    std::size_t encode(std::string& out, std::string_view stream, double t, std::string_view data);
    // The stream ended: the carried bytes, if any, as a base64 line; returns their count.
    std::size_t finish(std::string& out, std::string_view stream, double t);

private:
    char carry_[4] = {};
    std::size_t carry_size_ = 0;
    std::string joined_;  // carried bytes + the next chunk
};

// The pump's framing for json (monitor/output_pump.hpp, FramedOutput): both streams' lines into one output
// (husk's stdout), a line at a time; lines wait in one buffer while the output is full.
class JsonLineOutput : public monitor::FramedOutput {
public:
    JsonLineOutput(UniqueFd output, std::chrono::steady_clock::time_point origin);

    void chunk(int stream, std::string_view data) override;
    void end(int stream) override;
    bool busy() const override { return written_ < buffer_.size(); }
    Flush flush() override;
    int fd() const override { return sink_.fd(); }
    std::uint64_t delivered(int stream) const override { return delivered_[stream]; }

private:
    double now() const;
    void queued(int stream, std::size_t bytes);

    monitor::OutputSink sink_;
    std::chrono::steady_clock::time_point origin_;
    ChunkEncoder encoders_[2];
    std::string buffer_;
    std::size_t written_ = 0;
    struct Line {
        std::size_t end;  // offset in buffer_ just past the line
        int stream;
        std::size_t bytes;
    };
    std::vector<Line> lines_;  // queued, not written whole yet
    std::uint64_t delivered_[2] = {0, 0};
};

// The framing of the monitor's output pump (monitor/output_limit.hpp) that makes JSON lines.
monitor::Framing json_line_framing();

// Seconds from `origin` to now, for a line's "t".
double seconds_since(std::chrono::steady_clock::time_point origin);

// The last line of a json run: written to husk's stdout (fd 1) without blocking the caller forever: a reader that
// does not take it is waited for until it goes away or husk is asked to stop (asked_to_stop).
Result<void> deliver_verdict_line(std::string_view verdict_json, double t);

}  // namespace husk::frontend
