#include "tenant/record.hpp"

#include <charconv>
#include <cstdio>
#include <vector>

namespace husk::tenant {
namespace {

constexpr std::string_view source_names[] = {"monitor", "deleted", "rollback", "recovered-cgroup",
                                             "recovered-budget"};

// FNV-1a, 64 bits: not a defence against a writer who means harm (root can rewrite the ledger anyway), only a
// reliable test that a line is the one husk wrote whole.
std::uint64_t checksum(std::string_view text) {
    std::uint64_t hash = 14695981039346656037ULL;
    for (unsigned char c : text) {
        hash ^= c;
        hash *= 1099511628211ULL;
    }
    return hash;
}

bool plain_word(std::string_view word) {
    if (word.empty()) return false;
    for (unsigned char c : word)
        if (c <= ' ' || c == 0x7f) return false;
    return true;
}

std::string number(std::uint64_t value) { return std::to_string(value); }
std::string optional_number(const std::optional<std::uint64_t>& value) { return value ? number(*value) : "-"; }

std::vector<std::string_view> split(std::string_view text) {
    std::vector<std::string_view> words;
    while (!text.empty()) {
        auto space = text.find(' ');
        words.push_back(text.substr(0, space));
        if (space == std::string_view::npos) break;
        text.remove_prefix(space + 1);
    }
    return words;
}

template <typename T>
bool parse_number(std::string_view word, T& out) {
    auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), out);
    return ec == std::errc() && end == word.data() + word.size();
}

bool parse_optional(std::string_view word, std::optional<std::uint64_t>& out) {
    if (word == "-") return true;
    std::uint64_t value = 0;
    if (!parse_number(word, value)) return false;
    out = value;
    return true;
}

struct Encoder {
    std::string operator()(const StartRecord& r) const {
        return "start " + r.run + " " + std::to_string(r.at_usec) + " " + optional_number(r.budgets.cpu_usec) + " " +
               optional_number(r.budgets.wall_usec) + " " + optional_number(r.budgets.output_bytes) + " " +
               (r.cgroup.empty() ? "-" : r.cgroup);
    }
    std::string operator()(const EndRecord& r) const {
        return "end " + r.run + " " + std::to_string(r.at_usec) + " " + number(r.used.cpu_usec) + " " +
               number(r.used.wall_usec) + " " + number(r.used.output_bytes) + " " +
               std::string(source_name(r.source));
    }
    std::string operator()(const ResetRecord& r) const { return "reset " + std::to_string(r.at_usec); }
    std::string operator()(const SummaryRecord& r) const {
        return "summary " + std::to_string(r.at_usec) + " " + number(r.used.cpu_usec) + " " +
               number(r.used.wall_usec) + " " + number(r.used.output_bytes) + " " + number(r.runs);
    }
};

bool encodable(const Record& record) {
    if (const auto* start = std::get_if<StartRecord>(&record))
        return plain_word(start->run) && (start->cgroup.empty() || (plain_word(start->cgroup) && start->cgroup != "-"));
    if (const auto* end = std::get_if<EndRecord>(&record)) return plain_word(end->run);
    return true;
}

}  // namespace

std::string_view source_name(Source source) { return source_names[static_cast<std::size_t>(source)]; }

std::optional<std::string> encode_record(const Record& record) {
    if (!encodable(record)) return std::nullopt;
    std::string body = std::visit(Encoder{}, record);
    char sum[17];
    std::snprintf(sum, sizeof sum, "%016llx", static_cast<unsigned long long>(checksum(body)));
    return body + " " + sum + "\n";
}

std::optional<Record> decode_record(std::string_view line) {
    if (line.ends_with('\n')) line.remove_suffix(1);
    auto space = line.rfind(' ');
    if (space == std::string_view::npos || line.size() - space - 1 != 16) return std::nullopt;
    std::string_view body = line.substr(0, space);
    std::uint64_t sum = 0;
    auto hex = line.substr(space + 1);
    auto [end, ec] = std::from_chars(hex.data(), hex.data() + hex.size(), sum, 16);
    if (ec != std::errc() || end != hex.data() + hex.size() || sum != checksum(body)) return std::nullopt;
    auto words = split(body);
    if (words.size() == 2 && words[0] == "reset") {
        ResetRecord r;
        if (!parse_number(words[1], r.at_usec)) return std::nullopt;
        return r;
    }
    if (words.size() == 6 && words[0] == "summary") {
        SummaryRecord r;
        if (!parse_number(words[1], r.at_usec) || !parse_number(words[2], r.used.cpu_usec) ||
            !parse_number(words[3], r.used.wall_usec) || !parse_number(words[4], r.used.output_bytes) ||
            !parse_number(words[5], r.runs))
            return std::nullopt;
        return r;
    }
    if (words.size() == 7 && words[0] == "start") {
        StartRecord r;
        r.run = words[1];
        if (!parse_number(words[2], r.at_usec) || !parse_optional(words[3], r.budgets.cpu_usec) ||
            !parse_optional(words[4], r.budgets.wall_usec) || !parse_optional(words[5], r.budgets.output_bytes))
            return std::nullopt;
        if (words[6] != "-") r.cgroup = words[6];
        return r;
    }
    if (words.size() == 7 && words[0] == "end") {
        EndRecord r;
        r.run = words[1];
        if (!parse_number(words[2], r.at_usec) || !parse_number(words[3], r.used.cpu_usec) ||
            !parse_number(words[4], r.used.wall_usec) || !parse_number(words[5], r.used.output_bytes))
            return std::nullopt;
        for (std::size_t i = 0; i < std::size(source_names); ++i)
            if (words[6] == source_names[i]) {
                r.source = static_cast<Source>(i);
                return r;
            }
    }
    return std::nullopt;
}

}  // namespace husk::tenant
