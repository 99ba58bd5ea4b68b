// Json: a tiny JSON document for the integration tests: parse (yajl_tree), read, edit, dump.
// Numbers keep their original text, so uint64 values (rlimits, "unlimited") survive a round trip.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace husk::test {

class Json {
public:
    enum class Type { null, boolean, number, string, array, object };
    using Member = std::pair<std::string, Json>;

    Json() = default;
    Json(std::nullptr_t) {}
    Json(bool value) : type_(Type::boolean), bool_(value) {}
    Json(int value) : Json(static_cast<long long>(value)) {}
    Json(long value) : Json(static_cast<long long>(value)) {}
    Json(long long value) : type_(Type::number), text_(std::to_string(value)) {}
    Json(unsigned value) : Json(static_cast<unsigned long long>(value)) {}
    Json(unsigned long value) : Json(static_cast<unsigned long long>(value)) {}
    Json(unsigned long long value) : type_(Type::number), text_(std::to_string(value)) {}
    Json(const char* value) : type_(Type::string), text_(value) {}
    Json(std::string value) : type_(Type::string), text_(std::move(value)) {}

    static Json array(std::initializer_list<Json> items = {});
    static Json object(std::initializer_list<Member> members = {});
    static Json strings(const std::vector<std::string>& items);
    static Json number(std::string literal);  // kept verbatim, e.g. "18446744073709551615"
    // Throws std::runtime_error with yajl's message and the text when it is not one JSON value.
    static Json parse(std::string_view text);

    Type type() const { return type_; }
    bool is_null() const { return type_ == Type::null; }
    bool is_object() const { return type_ == Type::object; }
    bool is_array() const { return type_ == Type::array; }

    // Objects. The mutable operator[] turns null into an object and inserts a missing key (as null).
    Json& operator[](std::string_view key);
    const Json& operator[](std::string_view key) const;  // throws when the key is missing
    const Json* find(std::string_view key) const;
    bool contains(std::string_view key) const { return find(key) != nullptr; }
    void erase(std::string_view key);
    const std::vector<Member>& members() const;

    // Arrays. push_back turns null into an array.
    Json& at(size_t index);
    const Json& at(size_t index) const;
    void push_back(Json value);
    size_t size() const;
    const std::vector<Json>& items() const;
    std::vector<Json>& items();

    // Scalars; each throws std::runtime_error on a type mismatch.
    const std::string& str() const;
    long long num() const;
    unsigned long long u64() const;
    double dbl() const;
    bool boolean() const;
    std::vector<std::string> strs() const;  // an array of strings

    // Compact by default; indent > 0 pretty-prints (config.json files stay readable when a test fails).
    std::string dump(int indent = 0) const;

private:
    void dump_to(std::string& out, int indent, int depth) const;
    [[noreturn]] void mismatch(const char* wanted) const;

    Type type_ = Type::null;
    bool bool_ = false;
    std::string text_;  // string value, or the number's literal text
    std::vector<Json> items_;
    std::vector<Member> members_;
};

}  // namespace husk::test
