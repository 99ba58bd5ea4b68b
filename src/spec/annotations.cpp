#include "spec/annotations.hpp"

#include <charconv>
#include <limits>

#include "base/quote.hpp"
#include "base/size.hpp"
#include "husk/container_id.hpp"
#include "base/signal_names.hpp"

namespace husk::spec {
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

Error annotation_error(std::string_view key, const Error& why) {
    return Error::msg("annotations[\"" + std::string(key) + "\"]: " + why.message());
}

}  // namespace

const std::vector<std::string_view>& known_husk_annotations() {
    static const std::vector<std::string_view> known = {
        "run.husk.timeout",  "run.husk.kill-grace", "run.husk.stop-signal", "run.husk.output-limit",
        "run.husk.cpu-limit", "run.husk.oom-group", "run.husk.seccomp-unknown-syscalls", "run.husk.init",
        "run.husk.root",     "run.husk.tenant",     "run.husk.net-allow",   "run.husk.net-ops",
        "run.husk.net-ops-kill"};
    return known;
}

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

Result<void> parse_husk_annotation(std::string_view key, const std::string& value, HuskAnnotations& out) {
    using std::chrono::duration_cast;
    using std::chrono::milliseconds;
    std::string_view name = key.substr(husk_annotation_prefix.size());
    if (name == "timeout" || name == "kill-grace" || name == "cpu-limit") {
        auto duration = TRY(parse_duration(value));
        if (name != "kill-grace" && duration.count() == 0) return fail_msg("must be greater than 0");
        if (name == "cpu-limit") out.cpu_limit = duration;
        else if (name == "timeout") out.timeout = duration_cast<milliseconds>(duration + microseconds(999));
        else out.kill_grace = duration_cast<milliseconds>(duration + microseconds(999));
    } else if (name == "stop-signal") {
        out.stop_signal = TRY(parse_signal(value));
    } else if (name == "output-limit") {
        auto size = TRY(parse_size(value));
        if (size == 0) return fail_msg("must be greater than 0");
        out.output_limit = size;
    } else if (name == "oom-group" || name == "init" || name == "net-ops-kill") {
        if (value != "true" && value != "false") return fail_msg("want \"true\" or \"false\", not " + quoted(value));
        if (name == "init") out.init = value == "true";
        else if (name == "net-ops-kill") out.net_ops_kill = value == "true";
        else out.oom_group = value == "true";
    } else if (name == "net-allow") {
        out.net_allow = TRY(parse_net_allow(value));
    } else if (name == "net-ops") {
        std::uint64_t ops = 0;
        auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), ops);
        if (value.empty() || ec != std::errc() || end != value.data() + value.size() || ops == 0)
            return fail_msg("want a whole number of network operations greater than 0, not " + quoted(value));
        out.net_ops = ops;
    } else if (name == "seccomp-unknown-syscalls") {
        if (value != "error" && value != "skip-allowed")
            return fail_msg("want \"error\" or \"skip-allowed\", not " + quoted(value));
        out.seccomp_skip_unknown = value == "skip-allowed";
    } else if (name == "root") {
        if (value != "bind" && value != "tmpfs") return fail_msg("want \"bind\" or \"tmpfs\", not " + quoted(value));
        out.root_tmpfs = value == "tmpfs";
    } else if (name == "tenant") {
        if (!ContainerId::parse(value))
            return fail_msg("invalid tenant name " + quoted(value) +
                            " (letters, digits and _ + - ., not . or .., not starting with -)");
        out.tenant = value;
    } else {
        std::string known;
        for (std::string_view annotation : known_husk_annotations())
            known += (known.empty() ? "" : ", ") + std::string(annotation);
        return fail_msg("unknown husk annotation (known: " + known + ")");
    }
    return {};
}

Result<HuskAnnotations> parse_husk_annotations(const std::map<std::string, std::string>& annotations) {
    HuskAnnotations out;
    for (const auto& [key, value] : annotations) {
        if (!key.starts_with(husk_annotation_prefix)) continue;
        auto parsed = parse_husk_annotation(key, value, out);
        if (!parsed) return std::unexpected(annotation_error(key, parsed.error()));
    }
    if (out.net_ops_kill && !out.net_ops)
        return fail_msg("annotations[\"run.husk.net-ops-kill\"]: needs a budget to stop at (run.husk.net-ops)");
    return out;
}

}  // namespace husk::spec
