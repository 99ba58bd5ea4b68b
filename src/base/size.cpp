#include "base/size.hpp"

#include <cctype>
#include <limits>
#include <string>

#include "base/quote.hpp"

namespace husk {
namespace {

__extension__ typedef unsigned __int128 Wide;  // holds fraction << shift: < 10^9 * 2^50

constexpr std::uint64_t max_size = std::numeric_limits<std::uint64_t>::max();
constexpr std::size_t max_fraction_digits = 9;

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// "" and "b" → 0; "k", "kb", "kib" (any case) → 10; ... "p…" → 50; anything else → -1.
int unit_shift(std::string_view unit) {
    std::string lower(unit);
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (lower.empty() || lower == "b") return 0;
    constexpr std::string_view prefixes = "kmgtp";
    std::size_t power = prefixes.find(lower[0]);
    std::string_view tail = std::string_view(lower).substr(1);
    if (power == std::string_view::npos || !(tail.empty() || tail == "b" || tail == "ib")) return -1;
    return 10 * static_cast<int>(power + 1);
}

}  // namespace

Result<std::uint64_t> parse_size(std::string_view text) {
    auto invalid = [&](std::string_view why) {
        return fail_msg("size " + quoted(text) + ": " + std::string(why) +
                        " (want bytes, or a number and a binary unit: 64k, 512M, 1GiB)");
    };
    std::size_t at = 0;
    if (text.starts_with('-')) return invalid("must not be negative");
    std::uint64_t whole = 0;
    for (; at < text.size() && is_digit(text[at]); ++at) {
        auto digit = static_cast<std::uint64_t>(text[at] - '0');
        if (whole > (max_size - digit) / 10) return invalid("too large");
        whole = whole * 10 + digit;
    }
    if (at == 0) return invalid("not a number");
    std::uint64_t fraction = 0, fraction_scale = 1;
    if (at < text.size() && text[at] == '.') {
        std::size_t first = ++at;
        for (; at < text.size() && is_digit(text[at]); ++at) {
            if (at - first == max_fraction_digits) return invalid("too many decimal places");
            fraction = fraction * 10 + static_cast<std::uint64_t>(text[at] - '0');
            fraction_scale *= 10;
        }
        if (at == first) return invalid("no digits after the decimal point");
    }
    std::size_t spaces = at;
    while (at < text.size() && text[at] == ' ') ++at;
    if (at != spaces && at == text.size()) return invalid("trailing spaces");
    std::string_view unit = text.substr(at);
    int shift = unit_shift(unit);
    if (shift < 0) return invalid("unknown unit " + quoted(unit));
    Wide fraction_bytes = (static_cast<Wide>(fraction) << shift);
    if (fraction_bytes % fraction_scale != 0) return invalid("not a whole number of bytes");
    if (whole > (max_size >> shift)) return invalid("too large");
    std::uint64_t bytes = whole << shift;
    auto part = static_cast<std::uint64_t>(fraction_bytes / fraction_scale);  // < 2^shift: fits
    if (bytes > max_size - part) return invalid("too large");
    return bytes + part;
}

}  // namespace husk
