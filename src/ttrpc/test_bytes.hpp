// Bytes written as hex in the unit tests' golden encodings.
#pragma once

#include <string>
#include <string_view>

namespace husk::ttrpc {

inline std::string from_hex(std::string_view hex) {
    auto nibble = [](char c) { return c <= '9' ? c - '0' : c - 'a' + 10; };
    std::string out;
    for (std::size_t i = 0; i + 1 < hex.size(); i += 2) out.push_back(static_cast<char>(nibble(hex[i]) * 16 + nibble(hex[i + 1])));
    return out;
}

}  // namespace husk::ttrpc
