// JsonWriter: builds a JSON document (state, list, features, spec output, the stored config). Its text is
// byte for byte what yajl_gen wrote for the same calls (compact, or beautified with a tab per level), which
// husk used before: state.json files, `husk state` and `husk features` stay as they were. A call that would
// make invalid JSON (a non-string key, anything after the top-level value is complete) writes nothing, as
// yajl_gen refused it; the callers never make one.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace husk {

class JsonWriter {
public:
    enum class Style { compact, pretty };
    explicit JsonWriter(Style style = Style::compact) : pretty_(style == Style::pretty) {
        states_.push_back(State::start);
        out_.reserve(4096);  // a state record or a config: grown once, not ten times
    }

    JsonWriter& begin_object() { return open(State::map_start, '{'); }
    JsonWriter& end_object() { return close('}'); }
    JsonWriter& begin_array() { return open(State::array_start, '['); }
    JsonWriter& end_array() { return close(']'); }
    JsonWriter& key(std::string_view name) { return string(name); }
    JsonWriter& string(std::string_view value);
    JsonWriter& integer(std::int64_t value);
    JsonWriter& unsigned_integer(std::uint64_t value);
    JsonWriter& boolean(bool value) { return atom(value ? "true" : "false"); }
    JsonWriter& null() { return atom("null"); }
    // Inserts an already-encoded JSON value verbatim (must be valid JSON).
    JsonWriter& raw(std::string_view json) { return atom(json); }

    const std::string& str() const { return out_; }

private:
    enum class State : std::uint8_t { start, map_start, map_key, map_val, array_start, in_array, complete };

    bool writable() const { return states_.back() != State::complete; }
    bool expects_key() const { return states_.back() == State::map_start || states_.back() == State::map_key; }
    void separate();      // the comma or colon before a value
    void indent();        // pretty: a tab per level, except before a member's value
    void appended();      // a value is complete: what comes next
    void final_newline();  // pretty: after the top-level value
    JsonWriter& open(State state, char bracket);
    JsonWriter& close(char bracket);
    JsonWriter& atom(std::string_view text);

    bool pretty_;
    std::vector<State> states_;
    std::string out_;
};

}  // namespace husk
