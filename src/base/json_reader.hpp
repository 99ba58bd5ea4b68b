// A typed, path-aware view over husk's JSON tree (json_tree.hpp), the one way husk reads JSON values (config.json, state
// records, update --resources): every type error names the JSON path of the offending value
// ("process.args[0]: expected a string"), so errors point at the exact property.
#pragma once

#include <concepts>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "base/json_tree.hpp"
#include "husk/error.hpp"

namespace husk::json {

using Tree = JsonTree;

// Parses a whole document through base's bounded parser (json_tree.hpp: size, depth, NUL); a syntax error
// becomes "invalid JSON: <yajl's first message line>".
inline Result<Tree> parse_tree(std::string_view text) { return parse_json_tree(text); }

// One value of the tree plus its path. An absent property and JSON null are both "absent": Go-based
// clients write null for empty slices and pointers, and runc treats the two alike.
class Node {
public:
    Node(JsonRef value, std::string path) : value_(value), path_(std::move(path)) {}

    bool absent() const { return !value_ || value_.is_null(); }
    // Present and not an empty object, array or string: used to decide whether an unsupported feature
    // was actually requested.
    bool has_content() const;
    std::string path() const;

    // The property `key` of this object (absent when this is not an object or has no such key).
    Node field(std::string_view key) const;
    // The same, its path built only when asked for (an error names it): for a property read and dropped while
    // this node and `key` live (read_field), as most are, so reading one allocates nothing for its name.
    Node field_read_at_once(std::string_view key) const { return Node(value_.get(key), this, key); }

    Result<std::string> as_string() const;
    Result<bool> as_bool() const;
    // The elements (named path[i]) or the members in document order (named path.key), each referring to this
    // node for its path: valid while this node lives, as for a loop over them.
    Result<std::vector<Node>> as_array() const;
    Result<std::vector<std::pair<std::string, Node>>> as_object() const;
    Result<void> expect_object() const;

    // Integers are read from the number's source text so that the full uint64 range (RLIM_INFINITY,
    // hugepage limits) survives; fractions, exponents and out-of-range values are errors.
    Result<std::int64_t> as_int64() const;
    Result<std::uint64_t> as_uint64() const;

    template <std::integral T>
    Result<T> as() const {
        if constexpr (std::is_same_v<T, bool>) {
            return as_bool();
        } else if constexpr (std::is_signed_v<T>) {
            std::int64_t v = TRY(as_int64());
            if (v < std::numeric_limits<T>::min() || v > std::numeric_limits<T>::max())
                return fail(out_of_range(sizeof(T) * 8, true));
            return static_cast<T>(v);
        } else {
            std::uint64_t v = TRY(as_uint64());
            if (v > std::numeric_limits<T>::max()) return fail(out_of_range(sizeof(T) * 8, false));
            return static_cast<T>(v);
        }
    }

    // "<path>: <text>", the form of every message this module produces.
    Error error(std::string_view text) const;

private:
    Error out_of_range(std::size_t bits, bool is_signed) const;
    Error type_error(std::string_view expected) const;

    Node(JsonRef value, const Node* parent, std::string_view key) : value_(value), parent_(parent), key_(key) {}
    Node(JsonRef value, const Node* parent, std::size_t index)
        : value_(value), parent_(parent), index_(index), indexed_(true) {}

    JsonRef value_;
    std::string path_;
    // Built only when asked for: the path is parent_'s path and key_ (a member) or [index_] (an element).
    const Node* parent_ = nullptr;
    std::string_view key_;
    std::size_t index_ = 0;
    bool indexed_ = false;
};

// read(node, out): leaves `out` untouched when the node is absent, otherwise converts or fails.
Result<void> read(const Node& node, std::string& out);
Result<void> read(const Node& node, std::vector<std::string>& out);
Result<void> read(const Node& node, std::map<std::string, std::string>& out);

template <std::integral T>
Result<void> read(const Node& node, T& out) {
    if (node.absent()) return {};
    out = TRY(node.as<T>());
    return {};
}

template <typename T>
Result<void> read(const Node& node, std::optional<T>& out) {
    if (node.absent()) return {};
    T value{};
    TRY(read(node, value));
    out = std::move(value);
    return {};
}

template <std::integral T>
Result<void> read(const Node& node, std::vector<T>& out) {
    if (node.absent()) return {};
    for (const Node& element : TRY(node.as_array())) out.push_back(TRY(element.as<T>()));
    return {};
}

// A property the runtime-spec marks REQUIRED: absence is an error naming it.
Result<void> require(const Node& node);

// read(parent.field(key), out) in one step, optionally requiring the property.
enum class Presence { optional, required };
template <typename T>
Result<void> read_field(const Node& parent, std::string_view key, T& out, Presence presence = Presence::optional) {
    const Node child = parent.field_read_at_once(key);
    if (presence == Presence::required) TRY(require(child));
    return read(child, out);
}

// Calls parse(element, out.emplace_back()) for every element of an array property.
template <typename T, typename Fn>
Result<void> read_array(const Node& parent, std::string_view key, std::vector<T>& out, Fn&& parse) {
    const Node child = parent.field_read_at_once(key);
    if (child.absent()) return {};
    for (const Node& element : TRY(child.as_array())) TRY(parse(element, out.emplace_back()));
    return {};
}

}  // namespace husk::json
