#include "spec/settings.hpp"

#include <charconv>

#include "base/duration.hpp"
#include "base/quote.hpp"
#include "base/signal_names.hpp"
#include "base/size.hpp"
#include "husk/container_id.hpp"

namespace husk::spec {
namespace {

using std::chrono::duration_cast;
using std::chrono::microseconds;
using std::chrono::milliseconds;

// The value grammars: each parser returns the reason alone, each writer its inverse.

Result<microseconds> positive_duration(std::string_view value) {
    microseconds duration = TRY(parse_duration(value));
    if (duration.count() == 0) return fail_msg("must be greater than 0");
    return duration;
}

// The monitor's timers count whole milliseconds: round up, so a sub-millisecond limit is never none at all.
milliseconds whole_milliseconds(microseconds duration) {
    return duration_cast<milliseconds>(duration + microseconds(999));
}
Result<milliseconds> positive_milliseconds(std::string_view value) {
    return whole_milliseconds(TRY(positive_duration(value)));
}
Result<milliseconds> any_milliseconds(std::string_view value) { return whole_milliseconds(TRY(parse_duration(value))); }
std::string write_duration(const microseconds& duration) { return format_duration(duration); }
std::string write_milliseconds(const milliseconds& duration) { return format_duration(duration); }

Result<int> read_signal(std::string_view value) { return parse_signal(value); }
std::string write_signal(const int& signal) { return signal_name(signal); }

Result<std::uint64_t> positive_size(std::string_view value) {
    std::uint64_t size = TRY(parse_size(value));
    if (size == 0) return fail_msg("must be greater than 0");
    return size;
}
std::string write_number(const std::uint64_t& number) { return std::to_string(number); }

Result<std::uint64_t> positive_count(std::string_view value) {
    std::uint64_t count = 0;
    auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), count);
    if (value.empty() || ec != std::errc() || end != value.data() + value.size() || count == 0)
        return fail_msg("want a whole number of network operations greater than 0, not " + quoted(value));
    return count;
}

// A switch spelled by two words: `when_true` and `when_false` ("tmpfs" and "bind").
template <const char* when_true, const char* when_false>
Result<bool> read_choice(std::string_view value) {
    if (value == when_true) return true;
    if (value == when_false) return false;
    return fail_msg(std::string("want \"") + when_true + "\" or \"" + when_false + "\", not " + quoted(value));
}
template <const char* when_true, const char* when_false>
std::string write_choice(const bool& value) {
    return value ? when_true : when_false;
}
constexpr char word_true[] = "true", word_false[] = "false";
constexpr char word_skip_allowed[] = "skip-allowed", word_error[] = "error";
constexpr char word_tmpfs[] = "tmpfs", word_bind[] = "bind";

Result<std::string> read_tenant(std::string_view value) {
    if (!ContainerId::parse(value))
        return fail_msg("invalid tenant name " + quoted(value) +
                        " (letters, digits and _ + - ., not . or .., not starting with -)");
    return std::string(value);
}
std::string write_text(const std::string& text) { return text; }

Result<NetAllow> read_net_allow(std::string_view value) { return parse_net_allow(value); }
std::string write_net_allow(const NetAllow& allow) {
    std::string text;
    for (const NetAllowEntry& entry : allow.entries) {
        if (!text.empty()) text += ',';
        text += to_string(entry);
    }
    return text.empty() ? "none" : text;
}

// A row of the table from its field and the field's grammar.
template <auto member, auto read, auto write>
constexpr Setting row(std::string_view name, FlagKind flag, const char* help) {
    return Setting{
        name, flag, help,
        [](std::string_view value, HuskSettings& into) -> Result<void> {
            into.*member = TRY(read(value));
            return {};
        },
        [](const HuskSettings& settings) -> std::optional<std::string> {
            if (!(settings.*member)) return std::nullopt;
            return write(*(settings.*member));
        },
        [](HuskSettings& into, const HuskSettings& from) {
            if (from.*member) into.*member = from.*member;
        }};
}

using S = HuskSettings;
constexpr auto boolean_read = read_choice<word_true, word_false>;
constexpr auto boolean_write = write_choice<word_true, word_false>;

constexpr Setting table[] = {
    row<&S::timeout, positive_milliseconds, write_milliseconds>(
        "timeout", FlagKind::value,
        "wall-time limit counted from start (500ms, 30s, 2m, 1h; > 0): then the stop signal, and after the grace the "
        "whole container is killed; state says reason \"timeout\""),
    row<&S::kill_grace, any_milliseconds, write_milliseconds>(
        "kill-grace", FlagKind::value, "time between the stop signal and the kill (default 5s; 0 = kill at once)"),
    row<&S::stop_signal, read_signal, write_signal>("stop-signal", FlagKind::value,
                                                     "first signal at the deadline (default SIGTERM)"),
    row<&S::output_limit, positive_size, write_number>(
        "output-limit", FlagKind::value,
        "cap on stdout+stderr bytes together (4096, 64k, 10MiB; > 0; see SIZES in husk(8)): husk pumps the output, "
        "delivers exactly up to the cap, then kills the container; reason \"output-limit\""),
    row<&S::cpu_limit, positive_duration, write_duration>(
        "cpu-limit", FlagKind::value,
        "CPU-time budget of the whole cgroup counted from start (1.5s, 2m; > 0): then the container is killed; "
        "reason \"cpu-limit\""),
    row<&S::oom_group, boolean_read, boolean_write>("oom-group", FlagKind::none, ""),
    row<&S::seccomp_skip_unknown, read_choice<word_skip_allowed, word_error>, write_choice<word_skip_allowed, word_error>>(
        "seccomp-unknown-syscalls", FlagKind::none, ""),
    row<&S::init, boolean_read, boolean_write>("init", FlagKind::none, ""),
    row<&S::root_tmpfs, read_choice<word_tmpfs, word_bind>, write_choice<word_tmpfs, word_bind>>("root", FlagKind::none,
                                                                                                   ""),
    row<&S::tenant, read_tenant, write_text>(
        "tenant", FlagKind::value,
        "charge the run to this tenant's ledger (husk tenant set): refused with reason \"tenant-quota\" when the "
        "tenant has used up a ceiling, else --cpu-limit, --timeout and --output-limit are clamped to what it has "
        "left (docs/tenants.md)"),
    row<&S::net_allow, read_net_allow, write_net_allow>(
        "net-allow", FlagKind::repeated,
        "CIDR[:PORT] or none: the only TCP/UDP destinations the container may connect or send to (10.0.0.1/32:53, "
        "[fd00::/8]:443; repeatable; everything else, DNS included, gets EPERM; cgroup BPF; docs/network-policy.md)"),
    row<&S::net_ops, positive_count, write_number>(
        "net-ops", FlagKind::value,
        "budget of outgoing connects and addressed sends (> 0); past it they fail with EPERM"),
    row<&S::net_ops_kill, boolean_read, boolean_write>(
        "net-ops-kill", FlagKind::presence,
        "stop the container at the first network operation past --net-ops; reason \"network-limit\""),
    row<&S::die_with_parent, boolean_read, boolean_write>(
        "die-with-parent", FlagKind::presence,
        "when the process that started husk dies (even of SIGKILL), kill the container at once (also when husk "
        "itself dies); run and sandbox delete it, create leaves it stopped with its verdict for state until delete "
        "or gc"),
    row<&S::address_space, positive_size, write_number>(
        "address-space", FlagKind::value,
        "address-space ceiling of each process (RLIMIT_AS, soft and hard; 512m, 2GiB; SIZES): mappings past it fail "
        "with ENOMEM; per process, not in total, and counting reserved address space (Go, the JVM need far more "
        "than they use); the weaker stand-in for --memory where the memory controller is missing; husk(8) LIMITS"),
};

const Setting* find_setting(std::string_view name) {
    for (const Setting& setting : table)
        if (setting.name == name) return &setting;
    return nullptr;
}

std::string known_annotations() {
    std::string known;
    for (const Setting& setting : table) known += (known.empty() ? "" : ", ") + setting.annotation();
    return known;
}

}  // namespace

std::span<const Setting> husk_settings() { return table; }

Result<HuskSettings> parse_husk_annotations(const std::map<std::string, std::string>& annotations) {
    HuskSettings settings;
    for (const auto& [key, value] : annotations) {
        if (!key.starts_with(husk_annotation_prefix)) continue;
        const std::string named = "annotations[" + quoted(key) + "]: ";
        const Setting* setting = find_setting(std::string_view(key).substr(husk_annotation_prefix.size()));
        if (setting == nullptr) return fail_msg(named + "unknown husk annotation (known: " + known_annotations() + ")");
        if (auto parsed = setting->parse(value, settings); !parsed) return fail_msg(named + parsed.error().message());
    }
    return settings;
}

Result<void> parse_setting_flag(const Setting& setting, std::string_view value, HuskSettings& into) {
    if (auto parsed = setting.parse(value, into); !parsed)
        return fail_msg("--" + std::string(setting.name) + ": " + parsed.error().message());
    return {};
}

HuskSettings with_overrides(HuskSettings settings, const HuskSettings& overrides) {
    for (const Setting& setting : table) setting.take(settings, overrides);
    return settings;
}

Result<void> check_settings(const HuskSettings& settings) {
    if (settings.net_ops_kill.value_or(false) && !settings.net_ops)
        return fail_msg("run.husk.net-ops-kill (--net-ops-kill): needs a budget to stop at (run.husk.net-ops, "
                        "--net-ops)");
    return {};
}

std::map<std::string, std::string> annotations_of(std::map<std::string, std::string> annotations,
                                                  const HuskSettings& settings) {
    for (const Setting& setting : table) {
        const std::string key = setting.annotation();
        std::optional<std::string> wanted = setting.render(settings);
        auto present = annotations.find(key);
        if (!wanted) {
            if (present != annotations.end()) annotations.erase(present);
            continue;
        }
        if (present != annotations.end()) {
            // Kept as written when it says the same ("1.5s" for 1500ms).
            HuskSettings as_written;
            if (setting.parse(present->second, as_written) && setting.render(as_written) == wanted) continue;
        }
        annotations[key] = *wanted;
    }
    return annotations;
}

}  // namespace husk::spec
