// The one duration syntax of every flag and annotation that takes a time (docs/husk.8.md, DURATIONS): a number
// and a unit, read into whole microseconds and written back in the same syntax.
#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include "husk/error.hpp"

namespace husk {

// "30s", "500ms", "2m", "1h", "250us", decimals allowed ("1.5s"); a bare "0" is zero. Whole microseconds (what is
// below is cut off). The error is the reason with the input quoted; callers prefix the flag or annotation.
Result<std::chrono::microseconds> parse_duration(std::string_view text);

// The duration in the largest unit that holds it exactly ("1500ms", "2m", "0"): parse_duration reads it back to
// the same value.
std::string format_duration(std::chrono::microseconds duration);

}  // namespace husk
