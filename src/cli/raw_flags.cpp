#include "cli/raw_flags.hpp"

#include <charconv>
#include <optional>
#include <string_view>

namespace husk::cli {
namespace {

// The value of `--name` at args[i] (either form), or nothing when args[i] is another word.
std::optional<std::string> value_of(const std::vector<std::string>& args, std::size_t i, std::string_view name) {
    std::string_view word = args[i];
    if (word.size() < 2 + name.size() || word.substr(0, 2) != "--" || word.substr(2, name.size()) != name)
        return std::nullopt;
    std::string_view rest = word.substr(2 + name.size());
    if (!rest.empty()) {
        if (rest[0] != '=') return std::nullopt;  // another flag that starts the same: --verdict-fd
        return std::string(rest.substr(1));
    }
    if (i + 1 >= args.size() || args[i + 1].starts_with("-")) return std::nullopt;
    return args[i + 1];
}

}  // namespace

RawVerdictFlags scan_verdict_flags(const std::vector<std::string>& args) {
    RawVerdictFlags flags;
    bool path_seen = false, fd_seen = false, format_seen = false;
    for (std::size_t i = 0; i < args.size() && args[i] != "--"; ++i) {
        if (auto path = value_of(args, i, "verdict"); path && !path_seen) {
            path_seen = true;
            if (!path->empty()) flags.verdict_path = *path;
        } else if (auto fd = value_of(args, i, "verdict-fd"); fd && !fd_seen) {
            fd_seen = true;
            int n = -1;
            auto [end, error] = std::from_chars(fd->data(), fd->data() + fd->size(), n);
            if (error == std::errc() && end == fd->data() + fd->size() && n >= 0) flags.verdict_fd = n;
        } else if (auto format = value_of(args, i, "output-format"); format && !format_seen) {
            format_seen = true;
            flags.json = *format == "json";
        }
    }
    return flags;
}

}  // namespace husk::cli
