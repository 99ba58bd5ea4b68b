#include "cli/raw_flags.hpp"

#include <charconv>
#include <string_view>

#include "cli/raw_args.hpp"

namespace husk::cli {

RawVerdictFlags scan_verdict_flags(const std::vector<std::string>& args) {
    const auto is_verdict_flag = [](std::string_view spelling) {
        return spelling == "--verdict" || spelling == "--verdict-fd" || spelling == "--output-format";
    };
    RawVerdictFlags flags;
    bool path_seen = false, fd_seen = false, format_seen = false;
    // Every word up to "--" is looked at: the other options are unknown here, so an operand may be another
    // option's value ("--timeout nonsense") and the verdict flags may come after it.
    scan_raw_args(args, is_verdict_flag, DashedValue::refused, [&](const RawWord& word) {
        if (word.operand || !word.has_value) return true;
        const std::string_view value = word.value;
        if (word.spelling == "--verdict" && !path_seen) {
            path_seen = true;
            flags.verdict_path = value;
        } else if (word.spelling == "--verdict-fd" && !fd_seen) {
            fd_seen = true;
            int n = -1;
            auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), n);
            if (error == std::errc() && end == value.data() + value.size() && n >= 0) flags.verdict_fd = n;
        } else if (word.spelling == "--output-format" && !format_seen) {
            format_seen = true;
            flags.json = value == "json";
        }
        return true;
    });
    return flags;
}

}  // namespace husk::cli
