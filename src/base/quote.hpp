// Values quoted for error messages, so a stray newline or escape sequence in input cannot forge a line.
#pragma once

#include <string>
#include <string_view>

namespace husk {

// The value in double quotes; control characters, quotes and backslashes as \xNN.
std::string quoted(std::string_view value);

}  // namespace husk
