#include "base/duration.hpp"

#include <charconv>
#include <limits>
#include <optional>

#include "base/quote.hpp"

namespace husk {
namespace {

using std::chrono::microseconds;

struct Number {
    std::uint64_t whole = 0;
    std::uint64_t fraction = 0;       // the digits after the point, as an integer
    std::uint64_t fraction_scale = 1;  // 10^(number of those digits)
    std::string_view unit;
};

// "1.5ms" → {1, 5, 10, "ms"}. At most 9 fractional digits; no sign, no exponent, no spaces.
std::optional<Number> split_number(std::string_view text) {
    Number n;
    const char* end = text.data() + text.size();
    auto [after_whole, ec] = std::from_chars(text.data(), end, n.whole);
    if (ec != std::errc() || after_whole == text.data()) return std::nullopt;
    const char* at = after_whole;
    if (at != end && *at == '.') {
        ++at;
        const char* digits = at;
        while (at != end && *at >= '0' && *at <= '9' && at - digits < 9) {
            n.fraction = n.fraction * 10 + static_cast<std::uint64_t>(*at - '0');
            n.fraction_scale *= 10;
            ++at;
        }
        if (at == digits || (at != end && *at >= '0' && *at <= '9')) return std::nullopt;
    }
    n.unit = std::string_view(at, static_cast<std::size_t>(end - at));
    return n;
}

// whole * scale + fraction * scale / fraction_scale, or nothing on overflow.
std::optional<std::uint64_t> scaled(const Number& n, std::uint64_t scale) {
    constexpr auto max = std::numeric_limits<std::uint64_t>::max();
    if (n.whole > max / scale) return std::nullopt;
    std::uint64_t value = n.whole * scale;
    // fraction < 10^9 and scale ≤ 3.6 * 10^9: the product fits; what is below the unit is truncated.
    std::uint64_t part = n.fraction * scale / n.fraction_scale;
    if (value > max - part) return std::nullopt;
    return value + part;
}

struct Unit {
    std::string_view name;
    std::uint64_t scale;
};

}  // namespace

Result<microseconds> parse_duration(std::string_view text) {
    static constexpr Unit units[] = {{"us", 1}, {"ms", 1000}, {"s", 1000000}, {"m", 60000000}, {"h", 3600000000}};
    auto bad = [&] {
        return fail_msg("invalid duration " + quoted(text) + " (want a number and a unit: 500ms, 30s, 2m, 1h)");
    };
    auto n = split_number(text);
    if (!n) return bad();
    if (n->unit.empty()) {
        if (n->whole == 0 && n->fraction == 0 && text == "0") return microseconds(0);
        return bad();
    }
    for (const Unit& unit : units) {
        if (unit.name != n->unit) continue;
        auto value = scaled(*n, unit.scale);
        if (!value || *value > static_cast<std::uint64_t>(std::numeric_limits<microseconds::rep>::max()))
            return fail_msg("duration " + quoted(text) + " is too long");
        return microseconds(static_cast<microseconds::rep>(*value));
    }
    return bad();
}

std::string format_duration(microseconds duration) {
    static constexpr Unit units[] = {{"h", 3600000000}, {"m", 60000000}, {"s", 1000000}, {"ms", 1000}, {"us", 1}};
    const auto count = static_cast<std::uint64_t>(duration.count());
    if (duration.count() <= 0) return "0";
    for (const Unit& unit : units)
        if (count % unit.scale == 0) return std::to_string(count / unit.scale) + std::string(unit.name);
    return std::to_string(count) + "us";
}

}  // namespace husk
