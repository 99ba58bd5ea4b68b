#include "json.hpp"

#include <yajl/yajl_tree.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <stdexcept>

namespace husk::test {
namespace {

using TreePtr = std::unique_ptr<std::remove_pointer_t<yajl_val>, decltype(&yajl_tree_free)>;

Json from_tree(yajl_val v) {
    if (YAJL_IS_STRING(v)) return Json(std::string(YAJL_GET_STRING(v)));
    if (YAJL_IS_NUMBER(v)) return Json::number(YAJL_GET_NUMBER(v));
    if (YAJL_IS_TRUE(v)) return Json(true);
    if (YAJL_IS_FALSE(v)) return Json(false);
    if (YAJL_IS_ARRAY(v)) {
        Json out = Json::array();
        for (size_t i = 0; i < v->u.array.len; ++i) out.push_back(from_tree(v->u.array.values[i]));
        return out;
    }
    if (YAJL_IS_OBJECT(v)) {
        Json out = Json::object();
        for (size_t i = 0; i < v->u.object.len; ++i) out[v->u.object.keys[i]] = from_tree(v->u.object.values[i]);
        return out;
    }
    return Json();
}

void quote(std::string& out, const std::string& s) {
    out += '"';
    for (unsigned char c : s) {
        switch (c) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\n': out += "\\n"; break;
            case '\t': out += "\\t"; break;
            case '\r': out += "\\r"; break;
            default:
                if (c < 0x20) {
                    char buf[8];
                    std::snprintf(buf, sizeof buf, "\\u%04x", c);
                    out += buf;
                } else {
                    out += static_cast<char>(c);
                }
        }
    }
    out += '"';
}

}  // namespace

Json Json::array(std::initializer_list<Json> items) {
    Json out;
    out.type_ = Type::array;
    out.items_.assign(items.begin(), items.end());
    return out;
}

Json Json::object(std::initializer_list<Member> members) {
    Json out;
    out.type_ = Type::object;
    for (const Member& m : members) out[m.first] = m.second;
    return out;
}

Json Json::number(std::string literal) {
    Json out;
    out.type_ = Type::number;
    out.text_ = std::move(literal);
    return out;
}

Json Json::strings(const std::vector<std::string>& items) {
    Json out = array();
    for (const std::string& s : items) out.push_back(s);
    return out;
}

Json Json::parse(std::string_view text) {
    std::string input(text);
    char error[512] = {};
    TreePtr tree(yajl_tree_parse(input.c_str(), error, sizeof error), &yajl_tree_free);
    if (!tree) throw std::runtime_error("invalid JSON (" + std::string(error) + "): " + input.substr(0, 400));
    return from_tree(tree.get());
}

Json& Json::operator[](std::string_view key) {
    if (type_ == Type::null) type_ = Type::object;
    if (type_ != Type::object) mismatch("object");
    for (Member& m : members_)
        if (m.first == key) return m.second;
    members_.emplace_back(std::string(key), Json());
    return members_.back().second;
}

const Json& Json::operator[](std::string_view key) const {
    if (const Json* found = find(key)) return *found;
    throw std::runtime_error("JSON has no key \"" + std::string(key) + "\": " + dump().substr(0, 400));
}

const Json* Json::find(std::string_view key) const {
    if (type_ != Type::object) return nullptr;
    for (const Member& m : members_)
        if (m.first == key) return &m.second;
    return nullptr;
}

void Json::erase(std::string_view key) {
    std::erase_if(members_, [&](const Member& m) { return m.first == key; });
}

const std::vector<Json::Member>& Json::members() const {
    if (type_ != Type::object) mismatch("object");
    return members_;
}

Json& Json::at(size_t index) {
    if (type_ != Type::array || index >= items_.size()) mismatch("array with that index");
    return items_[index];
}

const Json& Json::at(size_t index) const {
    if (type_ != Type::array || index >= items_.size()) mismatch("array with that index");
    return items_[index];
}

void Json::push_back(Json value) {
    if (type_ == Type::null) type_ = Type::array;
    if (type_ != Type::array) mismatch("array");
    items_.push_back(std::move(value));
}

size_t Json::size() const { return type_ == Type::array ? items_.size() : type_ == Type::object ? members_.size() : 0; }

const std::vector<Json>& Json::items() const {
    if (type_ != Type::array) mismatch("array");
    return items_;
}

std::vector<Json>& Json::items() {
    if (type_ != Type::array) mismatch("array");
    return items_;
}

const std::string& Json::str() const {
    if (type_ != Type::string) mismatch("string");
    return text_;
}

long long Json::num() const {
    if (type_ != Type::number) mismatch("number");
    return std::strtoll(text_.c_str(), nullptr, 10);
}

unsigned long long Json::u64() const {
    if (type_ != Type::number) mismatch("number");
    return std::strtoull(text_.c_str(), nullptr, 10);
}

double Json::dbl() const {
    if (type_ != Type::number) mismatch("number");
    return std::strtod(text_.c_str(), nullptr);
}

bool Json::boolean() const {
    if (type_ != Type::boolean) mismatch("boolean");
    return bool_;
}

std::vector<std::string> Json::strs() const {
    std::vector<std::string> out;
    for (const Json& item : items()) out.push_back(item.str());
    return out;
}

std::string Json::dump(int indent) const {
    std::string out;
    dump_to(out, indent, 0);
    return out;
}

void Json::dump_to(std::string& out, int indent, int depth) const {
    auto newline = [&](int level) {
        if (indent <= 0) return;
        out += '\n';
        out.append(static_cast<size_t>(indent * level), ' ');
    };
    switch (type_) {
        case Type::null: out += "null"; break;
        case Type::boolean: out += bool_ ? "true" : "false"; break;
        case Type::number: out += text_; break;
        case Type::string: quote(out, text_); break;
        case Type::array:
            out += '[';
            for (size_t i = 0; i < items_.size(); ++i) {
                if (i) out += ',';
                newline(depth + 1);
                items_[i].dump_to(out, indent, depth + 1);
            }
            if (!items_.empty()) newline(depth);
            out += ']';
            break;
        case Type::object:
            out += '{';
            for (size_t i = 0; i < members_.size(); ++i) {
                if (i) out += ',';
                newline(depth + 1);
                quote(out, members_[i].first);
                out += indent > 0 ? ": " : ":";
                members_[i].second.dump_to(out, indent, depth + 1);
            }
            if (!members_.empty()) newline(depth);
            out += '}';
            break;
    }
}

void Json::mismatch(const char* wanted) const {
    throw std::runtime_error(std::string("JSON value is not a ") + wanted + ": " + dump().substr(0, 400));
}

}  // namespace husk::test
