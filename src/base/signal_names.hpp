// Signal names and numbers as `kill` accepts them: "TERM", "SIGTERM", "15", and real-time "RTMIN+3".
#pragma once

#include <string_view>

#include "husk/error.hpp"

namespace husk {

Result<int> parse_signal(std::string_view text);

}  // namespace husk
