#include "husk/error.hpp"

#include <cstring>

namespace husk {
namespace {

// Appends src to the fixed buffer, always NUL-terminated, truncating silently.
void append(char* buffer, std::size_t size, std::size_t& used, std::string_view src) noexcept {
    for (char c : src) {
        if (used + 1 >= size) break;
        buffer[used++] = c;
    }
    buffer[used] = '\0';
}

}  // namespace

Error Error::sys(int err, std::string_view op, std::string_view subject) noexcept {
    Error e;
    e.err = err;
    std::size_t used = 0;
    append(e.what, sizeof e.what, used, op);
    if (!subject.empty()) {
        append(e.what, sizeof e.what, used, " \"");
        append(e.what, sizeof e.what, used, subject);
        append(e.what, sizeof e.what, used, "\"");
    }
    return e;
}

Error Error::msg(std::string_view text, ErrorKind kind) noexcept {
    Error e;
    e.kind = kind;
    std::size_t used = 0;
    append(e.what, sizeof e.what, used, text);
    return e;
}

Error& Error::context(std::string_view prefix) noexcept {
    char old[sizeof what];
    std::memcpy(old, what, sizeof what);
    std::size_t used = 0;
    append(what, sizeof what, used, prefix);
    append(what, sizeof what, used, ": ");
    append(what, sizeof what, used, old);
    return *this;
}

std::string Error::message() const {
    std::string out = what;
    if (err != 0) {
        // Lower-case the first letter, as runc's (Go's) messages are: "no such file or directory".
        std::string text = std::strerror(err);
        if (!text.empty() && text[0] >= 'A' && text[0] <= 'Z' && !(text.size() > 1 && text[1] >= 'A' && text[1] <= 'Z'))
            text[0] = static_cast<char>(text[0] - 'A' + 'a');
        out += out.empty() ? text : ": " + text;
    }
    return out;
}

}  // namespace husk
