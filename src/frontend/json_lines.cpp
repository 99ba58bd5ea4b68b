#include "frontend/json_lines.hpp"

#include <poll.h>

#include <cerrno>
#include <cstdio>

#include "monitor/stdio_write.hpp"

namespace husk::frontend {

using monitor::asked_to_stop;
using monitor::IgnoredSigpipe;
using monitor::open_output;
using monitor::OutputSink;
using monitor::stop_check_ms;
namespace {

const char* const stream_names[2] = {"stdout", "stderr"};

// A JSON string's body (RFC 8259 §7): the two characters that must be escaped and every control character;
// the rest of valid UTF-8 goes as it is.
void append_escaped(std::string& out, std::string_view text) {
    static const char hex[] = "0123456789abcdef";
    for (char c : text) {
        auto byte = static_cast<unsigned char>(c);
        switch (c) {
            case '"': out += "\\\""; continue;
            case '\\': out += "\\\\"; continue;
            case '\n': out += "\\n"; continue;
            case '\r': out += "\\r"; continue;
            case '\t': out += "\\t"; continue;
            case '\b': out += "\\b"; continue;
            case '\f': out += "\\f"; continue;
            default: break;
        }
        if (byte < 0x20) {
            out += "\\u00";
            out += hex[byte >> 4];
            out += hex[byte & 0xf];
        } else {
            out += c;
        }
    }
}

// RFC 4648 §4, with padding.
void append_base64(std::string& out, std::string_view data) {
    static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::size_t i = 0;
    auto at = [&](std::size_t k) { return static_cast<unsigned char>(data[k]); };
    for (; i + 3 <= data.size(); i += 3) {
        std::uint32_t v = (at(i) << 16) | (at(i + 1) << 8) | at(i + 2);
        for (int shift : {18, 12, 6, 0}) out += alphabet[(v >> shift) & 0x3f];
    }
    if (std::size_t left = data.size() - i; left > 0) {
        std::uint32_t v = at(i) << 16;
        if (left == 2) v |= at(i + 1) << 8;
        out += alphabet[(v >> 18) & 0x3f];
        out += alphabet[(v >> 12) & 0x3f];
        out += left == 2 ? alphabet[(v >> 6) & 0x3f] : '=';
        out += '=';
    }
}

void append_t(std::string& out, double t) {
    char text[32];
    std::snprintf(text, sizeof text, "%.6f", t < 0 ? 0.0 : t);  // microseconds
    out += text;
}

}  // namespace

Utf8Prefix scan_utf8(std::string_view data) {
    std::size_t i = 0;
    const std::size_t n = data.size();
    while (i < n) {
        auto lead = static_cast<unsigned char>(data[i]);
        if (lead < 0x80) {
            ++i;
            continue;
        }
        // Unicode 15, table 3-7: the length a lead byte starts, and the range its second byte must be in (the
        // narrow ranges exclude overlong forms, surrogates and code points past U+10FFFF).
        std::size_t length;
        unsigned char low = 0x80, high = 0xbf;
        if (lead >= 0xc2 && lead <= 0xdf) length = 2;
        else if (lead >= 0xe0 && lead <= 0xef) {
            length = 3;
            if (lead == 0xe0) low = 0xa0;
            if (lead == 0xed) high = 0x9f;
        } else if (lead >= 0xf0 && lead <= 0xf4) {
            length = 4;
            if (lead == 0xf0) low = 0x90;
            if (lead == 0xf4) high = 0x8f;
        } else {
            return {i, false};
        }
        for (std::size_t k = 1; k < length; ++k) {
            if (i + k >= n) return {i, true};
            auto byte = static_cast<unsigned char>(data[i + k]);
            if (k == 1 ? (byte < low || byte > high) : (byte < 0x80 || byte > 0xbf)) return {i, false};
        }
        i += length;
    }
    return {n, false};
}

void append_chunk_line(std::string& out, std::string_view stream, double t, std::string_view data, bool base64) {
    out += "{\"stream\":\"";
    out += stream;
    out += "\",\"t\":";
    append_t(out, t);
    out += ",\"data\":\"";
    if (base64) append_base64(out, data);
    else append_escaped(out, data);
    out += base64 ? "\",\"encoding\":\"base64\"}\n" : "\"}\n";
}

void append_verdict_line(std::string& out, double t, std::string_view verdict_json) {
    out += "{\"stream\":\"verdict\",\"t\":";
    append_t(out, t);
    out += ",\"verdict\":";
    out += verdict_json;
    out += "}\n";
}

std::size_t ChunkEncoder::encode(std::string& out, std::string_view stream, double t, std::string_view data) {
    // What was carried goes first; the copy is bounded by one chunk of the pump (its read buffer), and the
    // buffer keeps its capacity from one carry to the next.
    std::string_view whole = data;
    if (carry_size_ > 0) {
        joined_.assign(carry_, carry_size_).append(data);
        whole = joined_;
        carry_size_ = 0;
    }
    Utf8Prefix prefix = scan_utf8(whole);
    if (prefix.valid < whole.size() && !prefix.cut_at_end) {
        append_chunk_line(out, stream, t, whole, true);
        return whole.size();
    }
    std::size_t cut = whole.size() - prefix.valid;  // 0-3 bytes of a character the next read completes
    whole.substr(prefix.valid).copy(carry_, cut);
    carry_size_ = cut;
    if (prefix.valid == 0) return 0;
    append_chunk_line(out, stream, t, whole.substr(0, prefix.valid), false);
    return prefix.valid;
}

std::size_t ChunkEncoder::finish(std::string& out, std::string_view stream, double t) {
    std::size_t carried = carry_size_;
    if (carried > 0) append_chunk_line(out, stream, t, std::string_view(carry_, carried), true);
    carry_size_ = 0;
    return carried;
}

double seconds_since(std::chrono::steady_clock::time_point origin) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - origin).count();
}

JsonLineOutput::JsonLineOutput(UniqueFd output, std::chrono::steady_clock::time_point origin)
    : sink_(std::move(output)), origin_(origin) {
    // Once, so the loop does not allocate per chunk: a 16 KiB chunk of control characters escapes to 96 KiB.
    buffer_.reserve(128 * 1024);
    lines_.reserve(8);
}

double JsonLineOutput::now() const { return seconds_since(origin_); }

void JsonLineOutput::queued(int stream, std::size_t bytes) {
    if (bytes > 0) lines_.push_back(Line{buffer_.size(), stream, bytes});
}

void JsonLineOutput::chunk(int stream, std::string_view data) {
    queued(stream, encoders_[stream].encode(buffer_, stream_names[stream], now(), data));
}

void JsonLineOutput::end(int stream) { queued(stream, encoders_[stream].finish(buffer_, stream_names[stream], now())); }

monitor::Framing json_line_framing() {
    return [](UniqueFd output, std::chrono::steady_clock::time_point origin) -> std::unique_ptr<monitor::FramedOutput> {
        return std::make_unique<JsonLineOutput>(std::move(output), origin);
    };
}

JsonLineOutput::Flush JsonLineOutput::flush() {
    while (written_ < buffer_.size()) {
        ssize_t n = sink_.write_some(buffer_.data() + written_, buffer_.size() - written_);
        if (n < 0) return Flush::gone;
        if (n == 0) return Flush::blocked;
        written_ += static_cast<std::size_t>(n);
        std::size_t whole = 0;
        while (whole < lines_.size() && lines_[whole].end <= written_) {
            delivered_[lines_[whole].stream] += lines_[whole].bytes;
            ++whole;
        }
        lines_.erase(lines_.begin(), lines_.begin() + static_cast<std::ptrdiff_t>(whole));
    }
    buffer_.clear();  // keeps its capacity
    written_ = 0;
    return Flush::done;
}

Result<void> deliver_verdict_line(std::string_view verdict_json, double t) {
    std::string line;
    append_verdict_line(line, t, verdict_json);
    IgnoredSigpipe sigpipe;
    OutputSink sink(TRY(open_output(1, "--output-format json: stdout")));
    std::size_t written = 0;
    while (written < line.size()) {
        ssize_t n = sink.write_some(line.data() + written, line.size() - written);
        if (n < 0) return fail_sys(errno, "write", "--output-format json: the verdict line to stdout");
        written += static_cast<std::size_t>(n);
        if (n > 0) continue;
        if (asked_to_stop())
            return fail_msg("--output-format json: stopped waiting for stdout's reader to take the verdict line");
        pollfd p{sink.fd(), POLLOUT, 0};
        (void)::poll(&p, 1, stop_check_ms);
    }
    return {};
}

}  // namespace husk::frontend
