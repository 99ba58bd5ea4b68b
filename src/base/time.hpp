// Wall-clock timestamps in RFC 3339 with nanoseconds, as runc writes "created".
#pragma once

#include <ctime>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace husk {

std::string rfc3339_nano(const timespec& ts);
std::string now_rfc3339_nano();
// The microseconds since the epoch of what rfc3339_nano wrote ("2026-11-25T17:00:00.123456789Z"); nothing for
// any other text.
std::optional<std::int64_t> parse_rfc3339_usec(std::string_view text);

}  // namespace husk
