#include "base/json_writer.hpp"

#include <charconv>
#include <cstdint>
#include <cstring>

namespace husk {

void JsonWriter::separate() {
    State state = states_.back();
    if (state == State::map_key || state == State::in_array) {
        out_ += pretty_ ? ",\n" : ",";
    } else if (state == State::map_val) {
        out_ += pretty_ ? ": " : ":";
    }
}

void JsonWriter::indent() {
    if (!pretty_ || states_.back() == State::map_val) return;
    out_.append(states_.size() - 1, '\t');
}

void JsonWriter::appended() {
    State& state = states_.back();
    switch (state) {
        case State::start: state = State::complete; break;
        case State::map_start:
        case State::map_key: state = State::map_val; break;
        case State::array_start: state = State::in_array; break;
        case State::map_val: state = State::map_key; break;
        default: break;
    }
}

void JsonWriter::final_newline() {
    if (pretty_ && states_.back() == State::complete) out_ += '\n';
}

JsonWriter& JsonWriter::open(State state, char bracket) {
    if (!writable() || expects_key()) return *this;
    separate();
    indent();
    states_.push_back(state);
    out_ += bracket;
    if (pretty_) out_ += '\n';
    return *this;
}

JsonWriter& JsonWriter::close(char bracket) {
    if (!writable() || states_.size() < 2) return *this;
    states_.pop_back();
    if (pretty_) out_ += '\n';
    appended();
    indent();
    out_ += bracket;
    final_newline();
    return *this;
}

JsonWriter& JsonWriter::atom(std::string_view text) {
    if (!writable() || expects_key()) return *this;
    separate();
    indent();
    out_ += text;
    appended();
    final_newline();
    return *this;
}

namespace {

// Whether any of the 8 bytes in `word` must be escaped: a '"', a '\\' or a control character (below 0x20). The
// usual bit trick (a byte is zero exactly where x - 0x01 borrows into a byte whose top bit x did not have),
// on the word XORed with each quote character, and on the word itself for bytes below 0x20.
bool needs_escape(std::uint64_t word) {
    constexpr std::uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
    auto zero_byte = [](std::uint64_t x) { return (x - ones) & ~x & highs; };
    return (zero_byte(word ^ (ones * '"')) | zero_byte(word ^ (ones * '\\')) | ((word - ones * 0x20) & ~word & highs)) != 0;
}

}  // namespace

JsonWriter& JsonWriter::string(std::string_view value) {
    if (!writable()) return *this;
    separate();
    indent();
    out_ += '"';
    // Escaped as yajl_gen escaped: the two JSON must-escapes, the short forms of five control characters, \u00XX
    // for the other controls; '/' and everything from 0x7f up as they are. Runs of 8 plain bytes are copied at
    // once: a path or a name has nothing to escape.
    static constexpr char hex[] = "0123456789ABCDEF";
    std::size_t plain = 0, i = 0;
    const std::size_t size = value.size();
    while (i < size) {
        if (size - i >= 8) {
            std::uint64_t word;
            std::memcpy(&word, value.data() + i, 8);
            if (!needs_escape(word)) {
                i += 8;
                continue;
            }
        }
        auto c = static_cast<unsigned char>(value[i++]);
        if (c >= 0x20 && c != '"' && c != '\\') continue;
        out_.append(value.data() + plain, i - 1 - plain);
        plain = i;
        switch (c) {
            case '"': out_ += "\\\""; break;
            case '\\': out_ += "\\\\"; break;
            case '\b': out_ += "\\b"; break;
            case '\f': out_ += "\\f"; break;
            case '\n': out_ += "\\n"; break;
            case '\r': out_ += "\\r"; break;
            case '\t': out_ += "\\t"; break;
            default:
                out_ += "\\u00";
                out_ += hex[c >> 4];
                out_ += hex[c & 0xf];
        }
    }
    out_.append(value.data() + plain, size - plain);
    out_ += '"';
    appended();
    final_newline();
    return *this;
}

JsonWriter& JsonWriter::integer(std::int64_t value) {
    char text[24];
    auto end = std::to_chars(text, text + sizeof text, value).ptr;
    return atom(std::string_view(text, static_cast<std::size_t>(end - text)));
}

JsonWriter& JsonWriter::unsigned_integer(std::uint64_t value) {
    char text[24];
    auto end = std::to_chars(text, text + sizeof text, value).ptr;
    return atom(std::string_view(text, static_cast<std::size_t>(end - text)));
}

}  // namespace husk
