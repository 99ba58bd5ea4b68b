// Signal names and numbers as `kill` accepts them: "TERM", "SIGTERM", "15", and real-time "RTMIN+3".
#pragma once

#include <string>
#include <string_view>

#include "husk/error.hpp"

namespace husk {

Result<int> parse_signal(std::string_view text);

// "SIGTERM", "SIGRTMIN+3"; the number for one without a name. parse_signal reads it back to the same number.
std::string signal_name(int signal);

}  // namespace husk
