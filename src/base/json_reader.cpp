#include "base/json_reader.hpp"

#include <charconv>
#include <cstring>
#include <string>

namespace husk::json {
namespace {

std::string child_path(const std::string& parent, std::string_view key) {
    std::string path = parent;
    if (!path.empty()) path += '.';
    path += key;
    return path;
}

// key == name without measuring name first (a record looks up every member of a 20-member object).
bool same_key(const char* name, std::string_view key) {
    for (char c : key) {
        if (*name != c || c == '\0') return false;
        ++name;
    }
    return *name == '\0';
}

// yajl's numbers keep their source text; it is valid JSON number syntax by construction.
std::string_view number_text(yajl_val value) { return YAJL_GET_NUMBER(value); }

}  // namespace

bool Node::has_content() const {
    if (absent()) return false;
    if (YAJL_IS_OBJECT(value_)) return value_->u.object.len > 0;
    if (YAJL_IS_ARRAY(value_)) return value_->u.array.len > 0;
    if (YAJL_IS_STRING(value_)) return value_->u.string[0] != '\0';
    return true;
}

Node Node::field(std::string_view key) const {
    std::string path = child_path(path_, key);
    if (!YAJL_IS_OBJECT(value_)) return Node(nullptr, std::move(path));
    const auto& object = value_->u.object;
    // The last occurrence wins on duplicate keys, as with Go's encoding/json which runc uses.
    yajl_val found = nullptr;
    for (size_t i = 0; i < object.len; ++i)
        if (same_key(object.keys[i], key)) found = object.values[i];
    return Node(found, std::move(path));
}

Result<std::string> Node::as_string() const {
    if (!YAJL_IS_STRING(value_)) return fail(type_error("a string"));
    return std::string(value_->u.string);
}

Result<bool> Node::as_bool() const {
    if (YAJL_IS_TRUE(value_)) return true;
    if (YAJL_IS_FALSE(value_)) return false;
    return fail(type_error("a boolean"));
}

Result<std::vector<Node>> Node::as_array() const {
    if (!YAJL_IS_ARRAY(value_)) return fail(type_error("an array"));
    std::vector<Node> elements;
    const auto& array = value_->u.array;
    elements.reserve(array.len);
    for (size_t i = 0; i < array.len; ++i)
        elements.emplace_back(array.values[i], path_ + "[" + std::to_string(i) + "]");
    return elements;
}

Result<std::vector<std::pair<std::string, Node>>> Node::as_object() const {
    TRY(expect_object());
    std::vector<std::pair<std::string, Node>> members;
    const auto& object = value_->u.object;
    members.reserve(object.len);
    for (size_t i = 0; i < object.len; ++i)
        members.emplace_back(object.keys[i], Node(object.values[i], child_path(path_, object.keys[i])));
    return members;
}

Result<void> Node::expect_object() const {
    if (!YAJL_IS_OBJECT(value_)) return fail(type_error("an object"));
    return {};
}

Result<std::int64_t> Node::as_int64() const {
    if (!YAJL_IS_NUMBER(value_)) return fail(type_error("an integer"));
    std::string_view text = number_text(value_);
    std::int64_t value = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec == std::errc::result_out_of_range) return fail(out_of_range(64, true));
    if (ec != std::errc() || end != text.data() + text.size()) return fail(type_error("an integer"));
    return value;
}

Result<std::uint64_t> Node::as_uint64() const {
    if (!YAJL_IS_NUMBER(value_)) return fail(type_error("an unsigned integer"));
    std::string_view text = number_text(value_);
    // from_chars for unsigned types rejects a leading '-', so "-1" is a type error, not a wrap-around.
    std::uint64_t value = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec == std::errc::result_out_of_range) return fail(out_of_range(64, false));
    if (ec != std::errc() || end != text.data() + text.size()) return fail(type_error("an unsigned integer"));
    return value;
}

Error Node::error(std::string_view text) const {
    std::string message = path_.empty() ? std::string("(top level)") : path_;
    message += ": ";
    message += text;
    return Error::msg(message);
}

Error Node::out_of_range(std::size_t bits, bool is_signed) const {
    std::string text(number_text(value_));
    return error(text + " is out of range for a " + std::to_string(bits) + "-bit " +
                 (is_signed ? "integer" : "unsigned integer"));
}

Error Node::type_error(std::string_view expected) const { return error("expected " + std::string(expected)); }

Result<void> read(const Node& node, std::string& out) {
    if (node.absent()) return {};
    out = TRY(node.as_string());
    return {};
}

Result<void> read(const Node& node, std::vector<std::string>& out) {
    if (node.absent()) return {};
    for (const Node& element : TRY(node.as_array())) out.push_back(TRY(element.as_string()));
    return {};
}

Result<void> read(const Node& node, std::map<std::string, std::string>& out) {
    if (node.absent()) return {};
    for (auto& [key, value] : TRY(node.as_object())) out[key] = TRY(value.as_string());
    return {};
}

Result<void> require(const Node& node) {
    if (node.absent()) return fail(node.error("required property is missing"));
    return {};
}

}  // namespace husk::json
