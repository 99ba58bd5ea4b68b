#include "base/json_tree.hpp"

#include <yajl/yajl_parse.h>

#include <cstring>
#include <optional>
#include <string>
#include <vector>

namespace husk {
namespace {

// The first pass runs yajl's event parser (no tree, its own state stack on the heap) and stops at the first
// level too deep or string with a NUL, keeping enough of a path to name the string.
class Checker {
public:
    static int on_null(void* self) { return static_cast<Checker*>(self)->value(); }
    static int on_boolean(void* self, int) { return static_cast<Checker*>(self)->value(); }
    static int on_number(void* self, const char*, size_t) { return static_cast<Checker*>(self)->value(); }
    static int on_string(void* self, const unsigned char* text, size_t length) {
        return static_cast<Checker*>(self)->string(text, length);
    }
    static int on_start(void* self) { return static_cast<Checker*>(self)->open(false); }
    static int on_start_array(void* self) { return static_cast<Checker*>(self)->open(true); }
    static int on_key(void* self, const unsigned char* text, size_t length) {
        return static_cast<Checker*>(self)->key(text, length);
    }
    static int on_end(void* self) {
        static_cast<Checker*>(self)->frames_.pop_back();
        return 1;
    }

    std::optional<Error> error;

private:
    struct Frame {
        bool array = false;
        std::size_t next = 0;   // arrays: the index of the next element
        std::size_t index = 0;  // arrays: the index of the element being read
        bool has_key = false;   // objects: a property is being read
        std::string key;
    };

    // Every value, containers included, starts here: it is the next element of an enclosing array.
    int value() {
        if (!frames_.empty() && frames_.back().array) frames_.back().index = frames_.back().next++;
        return 1;
    }

    int open(bool array) {
        value();
        if (frames_.size() >= max_json_depth) {
            error = Error::msg("invalid JSON: nested deeper than " + std::to_string(max_json_depth) + " levels");
            return 0;
        }
        frames_.emplace_back().array = array;
        return 1;
    }

    int key(const unsigned char* text, size_t length) {
        std::string_view name(reinterpret_cast<const char*>(text), length);
        frames_.back().has_key = false;
        if (name.find('\0') != std::string_view::npos) {
            error = Error::msg(path() + ": a property name contains a NUL character (\\u0000)");
            return 0;
        }
        frames_.back().key = name;
        frames_.back().has_key = true;
        return 1;
    }

    int string(const unsigned char* text, size_t length) {
        value();
        if (std::memchr(text, '\0', length) != nullptr) {
            error = Error::msg(path() + ": the string contains a NUL character (\\u0000)");
            return 0;
        }
        return 1;
    }

    // "process.args[0]", as spec's json::Node names values.
    std::string path() const {
        std::string out;
        for (const Frame& frame : frames_) {
            if (frame.array) {
                out += '[';
                out += std::to_string(frame.index);
                out += ']';
            } else if (frame.has_key) {
                if (!out.empty()) out += '.';
                out += frame.key;
            }
        }
        return out.empty() ? "(top level)" : out;
    }

    std::vector<Frame> frames_;
};

constexpr yajl_callbacks checker_callbacks = {
    Checker::on_null, Checker::on_boolean, nullptr, nullptr, Checker::on_number, Checker::on_string,
    Checker::on_start, Checker::on_key, Checker::on_end, Checker::on_start_array, Checker::on_end,
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

// A byte scan that proves the event pass below would find nothing, as it does for nearly every document (a
// state record, a config): no `u0000` anywhere (the only way to write a NUL character in JSON is the escape
// \u0000), no '/' outside strings (a comment could hide brackets), and brackets outside strings never more than
// max_json_depth deep. Strings end where yajl's lexer ends them, at an unescaped '"'; where the text stops being
// JSON, yajl stops too, so brackets beyond that point cannot reach its tree. False means "not proven": the event
// pass then decides, with its messages. It costs a fraction of that pass (a second full parse), which `husk
// list` paid once per container.
bool plainly_within_bounds(std::string_view text) {
    if (::memmem(text.data(), text.size(), "u0000", 5) != nullptr) return false;
    const char* const begin = text.data();
    const char* const end = begin + text.size();
    std::size_t depth = 0;
    for (const char* p = begin; p < end; ++p) {
        switch (*p) {
            case '"':
                // The closing quote: the next '"' after an even run of backslashes (an odd one escapes it).
                for (;;) {
                    p = static_cast<const char*>(std::memchr(p + 1, '"', static_cast<std::size_t>(end - p - 1)));
                    if (p == nullptr) return true;  // unterminated: yajl stops there
                    std::size_t backslashes = 0;
                    while (p[-1 - static_cast<std::ptrdiff_t>(backslashes)] == '\\') ++backslashes;
                    if (backslashes % 2 == 0) break;
                }
                break;
            case '/': return false;
            case '[':
            case '{':
                if (++depth > max_json_depth) return false;
                break;
            case ']':
            case '}':
                if (depth > 0) --depth;
                break;
            default: break;
        }
    }
    return true;
}

Result<void> check_text(std::string_view text) {
    if (text.size() > max_json_bytes)
        return fail_msg("invalid JSON: " + std::to_string(text.size()) + " bytes, more than husk reads (" +
                        std::to_string(max_json_bytes >> 20) + " MiB)");
    if (std::size_t nul = text.find('\0'); nul != std::string_view::npos)
        return fail_msg("invalid JSON: NUL byte at offset " + std::to_string(nul));
    // Syntax errors are left to yajl_tree_parse, whose message has the same first line as the event pass's.
    if (plainly_within_bounds(text)) return {};
    Checker checker;
    std::unique_ptr<yajl_handle_t, HandleFree> handle(yajl_alloc(&checker_callbacks, nullptr, &checker));
    if (!handle) return fail_sys(ENOMEM, "yajl_alloc");
    // yajl_tree_parse allows comments; the first pass must accept exactly what the second one does.
    yajl_config(handle.get(), yajl_allow_comments, 1);
    auto* bytes = reinterpret_cast<const unsigned char*>(text.data());
    yajl_status status = yajl_parse(handle.get(), bytes, text.size());
    if (status == yajl_status_ok) status = yajl_complete_parse(handle.get());
    if (checker.error) return fail(*checker.error);
    if (status != yajl_status_ok) return fail_msg(syntax_error(handle.get(), text));
    return {};
}

}  // namespace

Result<JsonTree> parse_json_tree(std::string_view text) {
    TRY(check_text(text));
    // yajl_tree_parse needs a NUL-terminated buffer; the text has no NUL of its own (checked above).
    std::string input(text);
    char message[512] = {};
    JsonTree tree(yajl_tree_parse(input.c_str(), message, sizeof message));
    if (!tree) {
        std::string_view first(message);
        first = first.substr(0, first.find('\n'));
        return fail_msg("invalid JSON: " + std::string(first.empty() ? "parse error" : first));
    }
    return tree;
}

}  // namespace husk
