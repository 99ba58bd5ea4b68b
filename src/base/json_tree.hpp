// The one way husk parses JSON (config.json, update --resources, state records, the seccomp listener's
// state, a tenant's ceilings): yajl's lexer and parser, in one bounded pass that builds husk's own compact
// tree, so hostile text cannot exhaust memory or the stack, and no string can lose its tail to an embedded NUL.
// The tree is three arrays (values, the links from containers to their members, the text of strings and
// numbers), made with a handful of allocations: yajl's own tree cost one allocation per value and per
// member slot, and freeing it cost as much as building it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "husk/error.hpp"

namespace husk {

// A real config (a large seccomp profile included) is well under 1 MiB.
inline constexpr std::size_t max_json_bytes = std::size_t{4} << 20;
// The deepest runtime-spec property (linux.seccomp.syscalls[].args[]) is 5 levels down; a million nested `[`
// are refused before they cost anything.
inline constexpr std::size_t max_json_depth = 256;

enum class JsonType : std::uint8_t { null, boolean_false, boolean_true, number, string, array, object };

class JsonTree;

// One value of a tree, valid as long as the tree: a handle, cheap to copy. A default-constructed one is no
// value at all (an absent property).
class JsonRef {
public:
    JsonRef() = default;

    explicit operator bool() const { return value_ != nullptr; }
    JsonType type() const { return value_->type; }
    bool is_null() const { return value_ && value_->type == JsonType::null; }
    bool is_object() const { return value_ && value_->type == JsonType::object; }
    bool is_array() const { return value_ && value_->type == JsonType::array; }
    bool is_string() const { return value_ && value_->type == JsonType::string; }
    bool is_number() const { return value_ && value_->type == JsonType::number; }
    bool is_boolean() const { return value_ && (value_->type == JsonType::boolean_true || value_->type == JsonType::boolean_false); }
    bool is_true() const { return value_ && value_->type == JsonType::boolean_true; }

    // A string's content or a number's source text ("18446744073709551616" stays as written), NUL-terminated
    // in the tree (a string has no NUL of its own: the parser refuses one).
    std::string_view text() const;
    const char* c_str() const;

    // An array's elements or an object's members.
    std::size_t size() const { return value_->length; }
    JsonRef element(std::size_t i) const;
    std::string_view key(std::size_t i) const;
    JsonRef member(std::size_t i) const;
    // The member named `key` (the last one on duplicates, as Go's encoding/json which runc uses); none when
    // this is not an object or has no such member.
    JsonRef get(std::string_view key) const;

private:
    friend class JsonTree;
    friend class JsonTreeBuilder;
    struct Value {
        JsonType type;
        std::uint32_t length;  // string, number: bytes of text; array: elements; object: members
        std::uint32_t offset;  // string, number: where the text starts; array, object: the first link
    };
    JsonRef(const JsonTree* tree, const Value* value) : tree_(tree), value_(value) {}

    const JsonTree* tree_ = nullptr;
    const Value* value_ = nullptr;
};

class JsonTree {
public:
    // The document's top-level value.
    JsonRef get() const { return JsonRef(this, &values_[0]); }

private:
    friend class JsonRef;
    friend class JsonTreeBuilder;
    std::vector<JsonRef::Value> values_;  // every value, in document order; an object's keys among them
    std::vector<std::uint32_t> links_;    // array: its elements' indexes; object: key, value, key, value...
    std::vector<char> text_;              // strings and numbers, each followed by a NUL
};

// Parses a whole document. Errors:
//   "invalid JSON: <yajl's first message line>"                  (syntax)
//   "invalid JSON: <n> bytes, more than husk reads (4 MiB)"       (size)
//   "invalid JSON: nested deeper than 256 levels"                 (depth)
//   "invalid JSON: NUL byte at offset <n>"                        (a raw NUL byte)
//   "<json path>: the string contains a NUL character (\u0000)"  (it would cut args, env, paths short)
// Paths look like spec's: "process.args[0]", "(top level)" for the document itself. Comments are allowed, as
// yajl's tree allowed them.
Result<JsonTree> parse_json_tree(std::string_view text);
// parse_json_tree reads the plain shape of JSON itself (ASCII strings with the short escapes, plain numbers,
// no comments, an object or array at the top) and gives any other text, errors included, to yajl's parser.
// The two halves, for the tests that hold them to each other:
std::optional<JsonTree> parse_plain_json(std::string_view text);  // nothing: not of the plain shape
Result<JsonTree> parse_json_tree_with_yajl(std::string_view text);
// The same value: types, texts (a number's as written), elements and members in order.
bool same_json(JsonRef a, JsonRef b);

}  // namespace husk
