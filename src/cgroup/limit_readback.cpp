// compare_readback per file family (cgroup-v2.rst describes each format), and apply_limits, which writes
// and reads back each file.
#include "cgroup/limit_readback.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <climits>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "cgroup/hierarchy.hpp"
#include "cgroup/limits.hpp"

namespace husk::cgroup {
namespace {

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

template <typename T>
std::optional<T> parse_number(std::string_view text) {
    T value{};
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
    return value;
}

// The kernel's memparse: a decimal number with an optional K/M/G/T/P/E suffix (powers of 1024). Leading
// zeros (octal or hex to the kernel) are left to "unknown".
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

Readback verdict(bool same) { return same ? Readback::match : Readback::mismatch; }

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

// "2MB" in hugetlb.2MB.max → bytes.
std::optional<std::uint64_t> huge_page_bytes(std::string_view file) {
    std::string_view size = file.substr(8);  // after "hugetlb."
    size = size.substr(0, size.find('.'));
    if (size.size() < 3 || size.back() != 'B') return std::nullopt;
    auto bytes = memparse(size.substr(0, size.size() - 1));
    return bytes && *bytes > 0 ? bytes : std::nullopt;
}

// "0-2,4" → {0,1,2,4}. Stride forms ("0-8:2/4") are left to "unknown".
std::optional<std::set<unsigned>> parse_list(std::string_view text) {
    std::set<unsigned> out;
    for (std::string_view part : split(trim(text), ",")) {
        part = trim(part);
        std::size_t dash = part.find('-');
        auto low = parse_number<unsigned>(part.substr(0, dash));
        auto high = dash == std::string_view::npos ? low : parse_number<unsigned>(part.substr(dash + 1));
        if (!low || !high || *high < *low || *high - *low > 65536) return std::nullopt;
        for (unsigned i = *low; i <= *high; ++i) out.insert(i);
    }
    return out;
}

Readback compare_list(std::string_view written, std::string_view read) {
    auto w = parse_list(written);
    if (!w) return Readback::unknown;
    return verdict(parse_list(read) == w);
}

// cpu.max: "$QUOTA [$PERIOD]"; a quota alone leaves the period as it was.
Readback compare_cpu_max(std::string_view written, std::string_view read) {
    std::vector<std::string_view> w = split(written, " \t\n"), r = split(read, " \t\n");
    if (w.empty() || w.size() > 2) return Readback::unknown;
    if (r.size() != 2) return Readback::mismatch;
    Readback quota = compare_number_or_max(w[0], r[0]);
    if (quota != Readback::match || w.size() == 1) return quota;
    return compare_number_or_max(w[1], r[1]);
}

// The tokens of the line of `text` whose first token is `device`; empty when there is none.
std::vector<std::string_view> device_line(std::string_view text, std::string_view device) {
    for (std::string_view line : split(text, "\n")) {
        std::vector<std::string_view> tokens = split(line, " \t");
        if (!tokens.empty() && tokens[0] == device) return tokens;
    }
    return {};
}

// io.max: "MAJ:MIN rbps=N wbps=max ..."; the kernel prints every key of a device with any limit, and no line
// for a device without limits.
Readback compare_io_max(std::string_view written, std::string_view read) {
    std::vector<std::string_view> lines = split(written, "\n");
    if (lines.empty()) return Readback::unknown;
    for (std::string_view line : lines) {
        std::vector<std::string_view> tokens = split(line, " \t");
        if (tokens.size() < 2 || tokens[0].find(':') == std::string_view::npos) return Readback::unknown;
        std::vector<std::string_view> have = device_line(read, tokens[0]);
        for (std::size_t i = 1; i < tokens.size(); ++i) {
            std::size_t eq = tokens[i].find('=');
            if (eq == std::string_view::npos) return Readback::unknown;
            std::string_view key = tokens[i].substr(0, eq + 1), value = tokens[i].substr(eq + 1);
            if (have.empty()) {
                if (value != "max") return Readback::mismatch;
                continue;
            }
            auto it = std::find_if(have.begin() + 1, have.end(), [&](std::string_view t) { return t.starts_with(key); });
            if (it == have.end()) return Readback::unknown;
            if (compare_number_or_max(value, it->substr(key.size())) != Readback::match) return Readback::mismatch;
        }
    }
    return Readback::match;
}

// io.weight and io.bfq.weight: "N" or "default N" sets the default, "MAJ:MIN N" a device, "MAJ:MIN default"
// drops the device's own weight. Read back as "default N" and "MAJ:MIN N" lines.
Readback compare_weights(std::string_view written, std::string_view read) {
    std::vector<std::string_view> lines = split(written, "\n");
    if (lines.empty()) return Readback::unknown;
    for (std::string_view line : lines) {
        std::vector<std::string_view> tokens = split(line, " \t");
        if (tokens.size() == 1) tokens.insert(tokens.begin(), "default");
        if (tokens.size() != 2) return Readback::unknown;
        std::vector<std::string_view> have = device_line(read, tokens[0]);
        if (tokens[0] != "default" && tokens[1] == "default") {
            if (!have.empty()) return Readback::mismatch;
            continue;
        }
        if (!parse_number<std::uint64_t>(tokens[1])) return Readback::unknown;
        if (have.size() != 2 || have[1] != tokens[1]) return Readback::mismatch;
    }
    return Readback::match;
}

bool one_of(std::string_view file, std::initializer_list<std::string_view> names) {
    return std::find(names.begin(), names.end(), file) != names.end();
}

}  // namespace

Readback compare_readback(std::string_view file, std::string_view written, std::string_view read, std::size_t page_size) {
    written = trim(written);
    read = trim(read);
    if (one_of(file, {"memory.max", "memory.low", "memory.high", "memory.min", "memory.swap.max", "memory.swap.high",
                      "memory.zswap.max"}))
        return compare_page_counter(written, read, page_size, page_size);
    if (file.starts_with("hugetlb.") && file.ends_with(".max")) {
        auto huge = huge_page_bytes(file);
        return huge ? compare_page_counter(written, read, *huge, page_size) : Readback::unknown;
    }
    if (one_of(file, {"cpu.weight", "cpu.weight.nice", "cpu.idle", "cpu.max.burst", "memory.oom.group", "pids.max",
                      "cgroup.max.depth", "cgroup.max.descendants"}))
        return compare_number_or_max(written, read);
    if (file == "cpu.max") return compare_cpu_max(written, read);
    if (one_of(file, {"cpuset.cpus", "cpuset.mems", "cpuset.cpus.exclusive"})) return compare_list(written, read);
    if (file == "io.max") return compare_io_max(written, read);
    if (file == "io.weight" || file == "io.bfq.weight") return compare_weights(written, read);
    return Readback::unknown;
}

Result<void> apply_limits(int dir_fd, const std::string& where, const std::vector<LimitWrite>& writes) {
    const auto page_size = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    for (const LimitWrite& w : writes) {
        std::string path = where + "/" + w.file;
        int fd = ::openat(dir_fd, w.file.c_str(), O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
        if (fd < 0) return fail_sys(errno, w.field + ": open", path);
        UniqueFd file(fd);
        // cgroupfs takes one value per write(2).
        ssize_t n = ::write(file.get(), w.value.data(), w.value.size());
        if (n < 0) return fail_sys(errno, w.field + ": write \"" + w.value + "\" to", path);
        if (static_cast<std::size_t>(n) != w.value.size()) return fail_sys(EIO, w.field + ": short write to", path);

        std::string read = TRY(read_cgroup_file(dir_fd, w.file.c_str(), where));
        Readback result = compare_readback(w.file, w.value, read, page_size);
        // Files husk writes for spec fields all have known formats. A unified key whose format husk does not
        // know is written only: the kernel accepted the write, and there is no general way to tell whether
        // its way of printing the value back means the same thing.
        if (result == Readback::match || (result == Readback::unknown && w.verbatim)) continue;
        std::string shown(read.substr(0, read.find_last_not_of('\n') + 1));
        return fail_msg(w.field + ": wrote \"" + w.value + "\" to " + path + " but read back \"" + shown + "\"");
    }
    return {};
}

}  // namespace husk::cgroup
