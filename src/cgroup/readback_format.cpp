// Shared read-back formats (readback_format.hpp).
#include "cgroup/readback_format.hpp"

#include <algorithm>
#include <climits>

namespace husk::cgroup {

std::string_view trim(std::string_view text) {
    while (!text.empty() && (text.front() == ' ' || text.front() == '\n' || text.front() == '\t')) text.remove_prefix(1);
    while (!text.empty() && (text.back() == ' ' || text.back() == '\n' || text.back() == '\t')) text.remove_suffix(1);
    return text;
}

std::vector<std::string_view> split(std::string_view text, std::string_view separators) {
    std::vector<std::string_view> out;
    while (!text.empty()) {
        std::size_t at = text.find_first_of(separators);
        if (at != 0) out.push_back(text.substr(0, at));
        if (at == std::string_view::npos) break;
        text.remove_prefix(at + 1);
    }
    return out;
}

std::optional<std::uint64_t> memparse(std::string_view text) {
    if (text.size() > 1 && text.front() == '0') return std::nullopt;
    int shift = 0;
    if (!text.empty()) {
        static constexpr std::string_view suffixes = "kmgtpe";
        char last = static_cast<char>(text.back() | 0x20);
        std::size_t at = suffixes.find(last);
        if (at != std::string_view::npos && (text.back() < '0' || text.back() > '9')) {
            shift = 10 * static_cast<int>(at + 1);
            text.remove_suffix(1);
        }
    }
    auto value = parse_number<std::uint64_t>(text);
    if (!value || (shift > 0 && *value > (UINT64_MAX >> shift))) return std::nullopt;
    return *value << shift;
}

bool one_of(std::string_view file, std::initializer_list<std::string_view> names) {
    return std::find(names.begin(), names.end(), file) != names.end();
}

// "max" or a number, written and read the same.
Readback compare_number_or_max(std::string_view written, std::string_view read) {
    if (written == "max") return verdict(read == "max");
    auto w = parse_number<std::int64_t>(written);
    if (!w) return Readback::unknown;
    return verdict(parse_number<std::int64_t>(read) == w);
}

// memory.max and the hugetlb limits are page counters: bytes in, whole pages (or huge pages) kept, bytes
// out; a number beyond the counter's range is kept as its maximum and printed as "max".
Readback compare_page_counter(std::string_view written, std::string_view read, std::uint64_t granularity,
                              std::size_t page_size) {
    if (written == "max") return verdict(read == "max");
    auto bytes = memparse(written);
    if (!bytes) return Readback::unknown;
    const std::uint64_t counter_max = static_cast<std::uint64_t>(LONG_MAX) / page_size;
    auto value = parse_number<std::uint64_t>(read);
    if (*bytes / page_size >= counter_max) {
        std::uint64_t pages_per_unit = granularity / page_size;
        return verdict(read == "max" || (value && *value == counter_max / pages_per_unit * granularity));
    }
    return verdict(value && *value == *bytes / granularity * granularity);
}

// The tokens of the line of `text` whose first token is `device`; empty when there is none.
std::vector<std::string_view> device_line(std::string_view text, std::string_view device) {
    for (std::string_view line : split(text, "\n")) {
        std::vector<std::string_view> tokens = split(line, " \t");
        if (!tokens.empty() && tokens[0] == device) return tokens;
    }
    return {};
}

}  // namespace husk::cgroup
