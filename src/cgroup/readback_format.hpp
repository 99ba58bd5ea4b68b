// The text formats cgroup v2 interface files share (cgroup-v2.rst "Interface Files"), for the controllers'
// read-back comparisons: numbers or "max", page counters, nested keyed lines per device.
#pragma once

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string_view>
#include <vector>

#include "cgroup/limit_readback.hpp"

namespace husk::cgroup {

std::string_view trim(std::string_view text);
// The non-empty pieces of `text` between any of `separators`.
std::vector<std::string_view> split(std::string_view text, std::string_view separators);

template <typename T>
std::optional<T> parse_number(std::string_view text) {
    T value{};
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
    return value;
}

// The kernel's memparse: a decimal number with an optional K/M/G/T/P/E suffix (powers of 1024). Leading
// zeros (octal or hex to the kernel) are left to "unknown".
std::optional<std::uint64_t> memparse(std::string_view text);

bool one_of(std::string_view file, std::initializer_list<std::string_view> names);
inline Readback verdict(bool same) { return same ? Readback::match : Readback::mismatch; }

// "max" or a number, written and read the same.
Readback compare_number_or_max(std::string_view written, std::string_view read);

// memory.max and the hugetlb limits are page counters: bytes in, whole pages (or huge pages) kept, bytes
// out; a number beyond the counter's range is kept as its maximum and printed as "max".
Readback compare_page_counter(std::string_view written, std::string_view read, std::uint64_t granularity,
                              std::size_t page_size);

// The tokens of the line of `text` whose first token is `device`; empty when there is none.
std::vector<std::string_view> device_line(std::string_view text, std::string_view device);

}  // namespace husk::cgroup
