#include "base/json_reader.hpp"

#include <charconv>
#include <cstring>
#include <string>

namespace husk::json {
namespace {

std::string child_path(const std::string& parent, std::string_view key) {
    std::string path;
    path.reserve(parent.size() + 1 + key.size());
    path += parent;
    if (!path.empty()) path += '.';
    path += key;
    return path;
}

}  // namespace

bool Node::has_content() const {
    if (absent()) return false;
    if (value_.is_object() || value_.is_array()) return value_.size() > 0;
    if (value_.is_string()) return !value_.text().empty();
    return true;
}

std::string Node::path() const {
    if (parent_ == nullptr) return path_;
    if (indexed_) return parent_->path() + "[" + std::to_string(index_) + "]";
    return child_path(parent_->path(), key_);
}

// The last occurrence wins on duplicate keys, as with Go's encoding/json which runc uses (JsonRef::get).
Node Node::field(std::string_view key) const { return Node(value_.get(key), child_path(path(), key)); }

Result<std::string> Node::as_string() const {
    if (!value_.is_string()) return fail(type_error("a string"));
    return std::string(value_.text());
}

Result<bool> Node::as_bool() const {
    if (value_.is_boolean()) return value_.is_true();
    return fail(type_error("a boolean"));
}

Result<std::vector<Node>> Node::as_array() const {
    if (!value_.is_array()) return fail(type_error("an array"));
    std::vector<Node> elements;
    elements.reserve(value_.size());
    for (size_t i = 0; i < value_.size(); ++i) elements.push_back(Node(value_.element(i), this, i));
    return elements;
}

Result<std::vector<std::pair<std::string, Node>>> Node::as_object() const {
    TRY(expect_object());
    std::vector<std::pair<std::string, Node>> members;
    members.reserve(value_.size());
    for (size_t i = 0; i < value_.size(); ++i)
        members.emplace_back(std::string(value_.key(i)), Node(value_.member(i), this, value_.key(i)));
    return members;
}

Result<void> Node::expect_object() const {
    if (!value_.is_object()) return fail(type_error("an object"));
    return {};
}

Result<std::int64_t> Node::as_int64() const {
    if (!value_.is_number()) return fail(type_error("an integer"));
    std::string_view text = value_.text();
    std::int64_t value = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec == std::errc::result_out_of_range) return fail(out_of_range(64, true));
    if (ec != std::errc() || end != text.data() + text.size()) return fail(type_error("an integer"));
    return value;
}

Result<std::uint64_t> Node::as_uint64() const {
    if (!value_.is_number()) return fail(type_error("an unsigned integer"));
    std::string_view text = value_.text();
    // from_chars for unsigned types rejects a leading '-', so "-1" is a type error, not a wrap-around.
    std::uint64_t value = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec == std::errc::result_out_of_range) return fail(out_of_range(64, false));
    if (ec != std::errc() || end != text.data() + text.size()) return fail(type_error("an unsigned integer"));
    return value;
}

Error Node::error(std::string_view text) const {
    std::string message = path();
    if (message.empty()) message = "(top level)";
    message += ": ";
    message += text;
    return Error::msg(message);
}

Error Node::out_of_range(std::size_t bits, bool is_signed) const {
    std::string text(value_.text());
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
