#include "base/subordinate_ids.hpp"

#include <cerrno>
#include <charconv>
#include <string_view>

#include "base/fs.hpp"

namespace husk {
namespace {

std::uint32_t number(std::string_view text, bool& ok) {
    std::uint32_t value = 0;
    auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    ok = ok && error == std::errc() && end == text.data() + text.size() && !text.empty();
    return value;
}

}  // namespace

Result<std::vector<IdRange>> subordinate_ids(const std::string& path, const std::string& name, std::uint32_t id) {
    std::vector<IdRange> ranges;
    auto text = read_file(path);
    if (!text) {
        if (text.error().err == ENOENT) return ranges;
        return fail(text.error());
    }
    std::string_view rest = *text;
    while (!rest.empty()) {
        std::size_t end = rest.find('\n');
        std::string_view line = rest.substr(0, end);
        rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
        std::size_t first = line.find(':');
        std::size_t second = first == std::string_view::npos ? first : line.find(':', first + 1);
        if (second == std::string_view::npos) continue;  // a comment, or not a range: skipped as shadow's tools do
        std::string_view owner = line.substr(0, first);
        bool ok = true;
        IdRange range{number(line.substr(first + 1, second - first - 1), ok), number(line.substr(second + 1), ok)};
        bool numeric_match = true;
        const std::uint32_t owner_id = number(owner, numeric_match);
        if (!ok || range.count == 0) continue;
        if (owner == name || (numeric_match && owner_id == id)) ranges.push_back(range);
    }
    return ranges;
}

LocalUser local_user(std::uint32_t uid) {
    auto text = read_file("/etc/passwd");
    if (!text) return {};
    std::string_view rest = *text;
    while (!rest.empty()) {
        std::size_t end = rest.find('\n');
        std::string_view line = rest.substr(0, end);
        rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
        // name:password:uid:gid:gecos:home:shell
        std::string_view fields[7];
        std::size_t count = 0;
        for (std::size_t start = 0; count < 7;) {
            std::size_t colon = line.find(':', start);
            fields[count++] = line.substr(start, colon == std::string_view::npos ? colon : colon - start);
            if (colon == std::string_view::npos) break;
            start = colon + 1;
        }
        bool ok = count == 7;
        if (ok && number(fields[2], ok) == uid && ok) return LocalUser{std::string(fields[0]), std::string(fields[5])};
    }
    return {};
}

}  // namespace husk
