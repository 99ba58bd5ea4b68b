#include "base/json_tree.hpp"

#include <yajl/yajl_parse.h>

#include <cstring>
#include <memory>
#include <optional>
#include <string>

namespace husk {

std::string_view JsonRef::text() const { return {tree_->text_.data() + value_->offset, value_->length}; }

const char* JsonRef::c_str() const { return tree_->text_.data() + value_->offset; }

JsonRef JsonRef::element(std::size_t i) const { return JsonRef(tree_, &tree_->values_[tree_->links_[value_->offset + i]]); }

std::string_view JsonRef::key(std::size_t i) const {
    return JsonRef(tree_, &tree_->values_[tree_->links_[value_->offset + 2 * i]]).text();
}

JsonRef JsonRef::member(std::size_t i) const {
    return JsonRef(tree_, &tree_->values_[tree_->links_[value_->offset + 2 * i + 1]]);
}

JsonRef JsonRef::get(std::string_view name) const {
    if (!is_object()) return {};
    // The last occurrence wins: searched from the end, the first match is it.
    for (std::size_t i = value_->length; i-- > 0;)
        if (key(i) == name) return member(i);
    return {};
}

bool same_json(JsonRef a, JsonRef b) {
    if (a.type() != b.type()) return false;
    switch (a.type()) {
        case JsonType::string:
        case JsonType::number: return a.text() == b.text();
        case JsonType::array:
        case JsonType::object:
            if (a.size() != b.size()) return false;
            for (std::size_t i = 0; i < a.size(); ++i) {
                const bool object = a.type() == JsonType::object;
                if (object && a.key(i) != b.key(i)) return false;
                if (!same_json(object ? a.member(i) : a.element(i), object ? b.member(i) : b.element(i))) return false;
            }
            return true;
        default: return true;
    }
}

// yajl's event parser feeds this; it builds the tree and stops at the first level too deep or string with a
// NUL, keeping enough of a path to name the string. A container's members are collected on one scratch stack
// while it is open and moved to the links when it closes, so each lands next to its siblings.
class JsonTreeBuilder {
public:
    explicit JsonTreeBuilder(std::size_t text_size) {
        tree_.text_.reserve(text_size + 1);  // strings and numbers never take more than their source
        tree_.values_.reserve(text_size / 8 + 4);
    }

    static int on_null(void* self) { return as(self).scalar(JsonType::null); }
    static int on_boolean(void* self, int value) {
        return as(self).scalar(value ? JsonType::boolean_true : JsonType::boolean_false);
    }
    static int on_number(void* self, const char* text, size_t length) {
        return as(self).text(JsonType::number, text, length);
    }
    static int on_string(void* self, const unsigned char* text, size_t length) {
        return as(self).text(JsonType::string, reinterpret_cast<const char*>(text), length);
    }
    static int on_start_map(void* self) { return as(self).open(JsonType::object); }
    static int on_start_array(void* self) { return as(self).open(JsonType::array); }
    static int on_key(void* self, const unsigned char* text, size_t length) {
        return as(self).key(reinterpret_cast<const char*>(text), length);
    }
    static int on_end(void* self) { return as(self).close(); }

    std::optional<Error> error;
    JsonTree take() { return std::move(tree_); }

private:
    struct Frame {
        bool array = false;
        std::uint32_t value = 0;   // its index in values_
        std::size_t mark = 0;      // scratch_'s size when it opened
        std::uint32_t next = 0;    // arrays: the index of the next element
        std::uint32_t index = 0;   // arrays: the index of the element being read
        bool has_key = false;      // objects: a property is being read
        std::uint32_t key = 0;     // objects: its key's index in values_
    };

    static JsonTreeBuilder& as(void* self) { return *static_cast<JsonTreeBuilder*>(self); }

    // Every value, containers included, is added here: the next element of an enclosing array, or the value of
    // the enclosing object's current key.
    std::uint32_t add(JsonRef::Value value) {
        auto index = static_cast<std::uint32_t>(tree_.values_.size());
        tree_.values_.push_back(value);
        if (!frames_.empty()) {
            Frame& frame = frames_.back();
            if (frame.array) frame.index = frame.next++;
            scratch_.push_back(index);
        }
        return index;
    }

    int scalar(JsonType type) {
        add({type, 0, 0});
        return 1;
    }

    std::uint32_t store(const char* text, std::size_t length) {
        auto offset = static_cast<std::uint32_t>(tree_.text_.size());
        tree_.text_.insert(tree_.text_.end(), text, text + length);
        tree_.text_.push_back('\0');
        return offset;
    }

    int text(JsonType type, const char* text, std::size_t length) {
        if (type == JsonType::string && std::memchr(text, '\0', length) != nullptr) {
            if (!frames_.empty() && frames_.back().array) frames_.back().index = frames_.back().next;
            error = Error::msg(path() + ": the string contains a NUL character (\\u0000)");
            return 0;
        }
        add({type, static_cast<std::uint32_t>(length), store(text, length)});
        return 1;
    }

    int open(JsonType type) {
        if (frames_.size() >= max_json_depth) {
            error = Error::msg("invalid JSON: nested deeper than " + std::to_string(max_json_depth) + " levels");
            return 0;
        }
        std::uint32_t index = add({type, 0, 0});
        Frame& frame = frames_.emplace_back();
        frame.array = type == JsonType::array;
        frame.value = index;
        frame.mark = scratch_.size();
        return 1;
    }

    int key(const char* text, std::size_t length) {
        Frame& frame = frames_.back();
        frame.has_key = false;
        if (std::memchr(text, '\0', length) != nullptr) {
            error = Error::msg(path() + ": a property name contains a NUL character (\\u0000)");
            return 0;
        }
        auto index = static_cast<std::uint32_t>(tree_.values_.size());
        tree_.values_.push_back({JsonType::string, static_cast<std::uint32_t>(length), store(text, length)});
        scratch_.push_back(index);
        frame.key = index;
        frame.has_key = true;
        return 1;
    }

    int close() {
        const Frame& frame = frames_.back();
        JsonRef::Value& value = tree_.values_[frame.value];
        std::size_t members = scratch_.size() - frame.mark;
        value.offset = static_cast<std::uint32_t>(tree_.links_.size());
        value.length = static_cast<std::uint32_t>(frame.array ? members : members / 2);
        tree_.links_.insert(tree_.links_.end(), scratch_.begin() + static_cast<std::ptrdiff_t>(frame.mark), scratch_.end());
        scratch_.resize(frame.mark);
        frames_.pop_back();
        return 1;
    }

    // "process.args[0]", as json::Node names values.
    std::string path() const {
        std::string out;
        for (const Frame& frame : frames_) {
            if (frame.array) {
                out += '[';
                out += std::to_string(frame.index);
                out += ']';
            } else if (frame.has_key) {
                if (!out.empty()) out += '.';
                const JsonRef::Value& key = tree_.values_[frame.key];
                out.append(tree_.text_.data() + key.offset, key.length);
            }
        }
        return out.empty() ? "(top level)" : out;
    }

    JsonTree tree_;
    std::vector<Frame> frames_;
    std::vector<std::uint32_t> scratch_;
};

namespace {

// The JSON husk writes itself and clients send almost always: ASCII strings with the short escapes, plain
// numbers, no comments. PlainJson reads that shape alone, into the same builder as yajl's events, and gives
// up at anything else (a \u escape, a byte from 0x7f up, a control character, a comment, a number or literal
// yajl might read otherwise, a top level that is not an object or array, 256 levels, a syntax error); yajl
// then parses the whole text again. So what is accepted, how it reads and every error stay yajl's; the
// plain shape just costs a fifth of yajl's instructions (its lexer was the largest part of parsing a config).
class PlainJson {
public:
    PlainJson(std::string_view text, JsonTreeBuilder& builder)
        : at_(text.data()), end_(text.data() + text.size()), builder_(builder) {}

    bool parse() {
        space();
        if (at_ == end_ || (*at_ != '{' && *at_ != '[')) return false;
        if (!value(0)) return false;
        space();
        return at_ == end_;
    }

private:
    static bool ends_token(char c) { return c == ',' || c == ']' || c == '}' || c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

    void space() {
        while (at_ != end_ && (*at_ == ' ' || *at_ == '\n' || *at_ == '\r' || *at_ == '\t')) ++at_;
    }

    bool value(std::size_t depth) {
        space();
        if (at_ == end_) return false;
        switch (*at_) {
            case '{': return object(depth);
            case '[': return array(depth);
            case '"': {
                std::string_view text;
                return string(text) && JsonTreeBuilder::on_string(&builder_, bytes(text), text.size());
            }
            case 't': return literal("true") && JsonTreeBuilder::on_boolean(&builder_, 1);
            case 'f': return literal("false") && JsonTreeBuilder::on_boolean(&builder_, 0);
            case 'n': return literal("null") && JsonTreeBuilder::on_null(&builder_);
            default: return number();
        }
    }

    bool object(std::size_t depth) {
        if (depth + 1 >= max_json_depth) return false;
        ++at_;
        if (!JsonTreeBuilder::on_start_map(&builder_)) return false;
        space();
        if (at_ != end_ && *at_ == '}') return ++at_, JsonTreeBuilder::on_end(&builder_);
        for (;;) {
            space();
            std::string_view key;
            if (at_ == end_ || *at_ != '"' || !string(key)) return false;
            if (!JsonTreeBuilder::on_key(&builder_, bytes(key), key.size())) return false;
            space();
            if (at_ == end_ || *at_ != ':') return false;
            ++at_;
            if (!value(depth + 1)) return false;
            space();
            if (at_ == end_) return false;
            if (*at_ == '}') return ++at_, JsonTreeBuilder::on_end(&builder_);
            if (*at_++ != ',') return false;
        }
    }

    bool array(std::size_t depth) {
        if (depth + 1 >= max_json_depth) return false;
        ++at_;
        if (!JsonTreeBuilder::on_start_array(&builder_)) return false;
        space();
        if (at_ != end_ && *at_ == ']') return ++at_, JsonTreeBuilder::on_end(&builder_);
        for (;;) {
            if (!value(depth + 1)) return false;
            space();
            if (at_ == end_) return false;
            if (*at_ == ']') return ++at_, JsonTreeBuilder::on_end(&builder_);
            if (*at_++ != ',') return false;
        }
    }

    // At the opening quote. Printable ASCII as it is; the escapes \" \\ \/ \b \f \n \r \t decoded (into
    // decoded_, the text being valid until the next string).
    bool string(std::string_view& out) {
        const char* start = ++at_;
        while (at_ != end_ && *at_ != '"' && *at_ != '\\') {
            if (*at_ < 0x20 || *at_ > 0x7e) return false;
            ++at_;
        }
        if (at_ == end_) return false;
        if (*at_ == '"') {
            out = std::string_view(start, static_cast<std::size_t>(at_++ - start));
            return true;
        }
        decoded_.assign(start, at_);
        while (at_ != end_) {
            const char c = *at_++;
            if (c == '"') {
                out = decoded_;
                return true;
            }
            if (c < 0x20 || c > 0x7e) return false;
            if (c != '\\') {
                decoded_ += c;
                continue;
            }
            if (at_ == end_) return false;
            switch (*at_++) {
                case '"': decoded_ += '"'; break;
                case '\\': decoded_ += '\\'; break;
                case '/': decoded_ += '/'; break;
                case 'b': decoded_ += '\b'; break;
                case 'f': decoded_ += '\f'; break;
                case 'n': decoded_ += '\n'; break;
                case 'r': decoded_ += '\r'; break;
                case 't': decoded_ += '\t'; break;
                default: return false;  // \u and anything else: yajl's
            }
        }
        return false;
    }

    bool literal(std::string_view word) {
        if (static_cast<std::size_t>(end_ - at_) < word.size() || std::string_view(at_, word.size()) != word) return false;
        at_ += word.size();
        return at_ != end_ && ends_token(*at_);
    }

    // -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?, then a byte that ends it.
    bool number() {
        const char* start = at_;
        auto digits = [this] {
            const char* first = at_;
            while (at_ != end_ && *at_ >= '0' && *at_ <= '9') ++at_;
            return at_ != first;
        };
        if (*at_ == '-') ++at_;
        if (at_ == end_) return false;
        if (*at_ == '0') ++at_;
        else if (!digits()) return false;
        if (at_ != end_ && *at_ == '.' && (++at_, !digits())) return false;
        if (at_ != end_ && (*at_ == 'e' || *at_ == 'E')) {
            ++at_;
            if (at_ != end_ && (*at_ == '+' || *at_ == '-')) ++at_;
            if (!digits()) return false;
        }
        if (at_ == end_ || !ends_token(*at_)) return false;
        return JsonTreeBuilder::on_number(&builder_, start, static_cast<std::size_t>(at_ - start));
    }

    static const unsigned char* bytes(std::string_view text) { return reinterpret_cast<const unsigned char*>(text.data()); }

    const char* at_;
    const char* end_;
    JsonTreeBuilder& builder_;
    std::string decoded_;
};

constexpr yajl_callbacks builder_callbacks = {
    JsonTreeBuilder::on_null,      JsonTreeBuilder::on_boolean,     nullptr, nullptr, JsonTreeBuilder::on_number,
    JsonTreeBuilder::on_string,    JsonTreeBuilder::on_start_map,   JsonTreeBuilder::on_key,
    JsonTreeBuilder::on_end,       JsonTreeBuilder::on_start_array, JsonTreeBuilder::on_end,
};

struct HandleFree {
    void operator()(yajl_handle handle) const { yajl_free(handle); }
};

// yajl's message without the excerpt and arrow of the verbose form.
std::string syntax_error(yajl_handle handle, std::string_view text) {
    auto* bytes = reinterpret_cast<const unsigned char*>(text.data());
    unsigned char* message = yajl_get_error(handle, 0, bytes, text.size());
    std::string first = message ? reinterpret_cast<const char*>(message) : "";
    if (message) yajl_free_error(handle, message);
    first = first.substr(0, first.find('\n'));
    return "invalid JSON: " + (first.empty() ? std::string("parse error") : first);
}

}  // namespace

Result<JsonTree> parse_json_tree(std::string_view text) {
    if (text.size() > max_json_bytes)
        return fail_msg("invalid JSON: " + std::to_string(text.size()) + " bytes, more than husk reads (" +
                        std::to_string(max_json_bytes >> 20) + " MiB)");
    if (std::size_t nul = text.find('\0'); nul != std::string_view::npos)
        return fail_msg("invalid JSON: NUL byte at offset " + std::to_string(nul));
    if (std::optional<JsonTree> plain = parse_plain_json(text)) return std::move(*plain);
    return parse_json_tree_with_yajl(text);
}

std::optional<JsonTree> parse_plain_json(std::string_view text) {
    JsonTreeBuilder builder(text.size());
    if (!PlainJson(text, builder).parse() || builder.error) return std::nullopt;
    return builder.take();
}

Result<JsonTree> parse_json_tree_with_yajl(std::string_view text) {
    if (text.size() > max_json_bytes)
        return fail_msg("invalid JSON: " + std::to_string(text.size()) + " bytes, more than husk reads (" +
                        std::to_string(max_json_bytes >> 20) + " MiB)");
    if (std::size_t nul = text.find('\0'); nul != std::string_view::npos)
        return fail_msg("invalid JSON: NUL byte at offset " + std::to_string(nul));
    JsonTreeBuilder builder(text.size());
    std::unique_ptr<yajl_handle_t, HandleFree> handle(yajl_alloc(&builder_callbacks, nullptr, &builder));
    if (!handle) return fail_sys(ENOMEM, "yajl_alloc");
    yajl_config(handle.get(), yajl_allow_comments, 1);
    auto* bytes = reinterpret_cast<const unsigned char*>(text.data());
    yajl_status status = yajl_parse(handle.get(), bytes, text.size());
    if (status == yajl_status_ok) status = yajl_complete_parse(handle.get());
    if (builder.error) return fail(*builder.error);
    if (status != yajl_status_ok) return fail_msg(syntax_error(handle.get(), text));
    return builder.take();
}

}  // namespace husk
