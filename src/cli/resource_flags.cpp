#include "cli/resource_flags.hpp"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "base/size.hpp"

namespace husk::cli {

Result<std::uint64_t> whole_number(const std::string& flag, const std::string& text, std::uint64_t low, std::uint64_t high) {
    errno = 0;
    char* end = nullptr;
    unsigned long long value = std::strtoull(text.c_str(), &end, 10);
    if (text.empty() || !std::isdigit(static_cast<unsigned char>(text[0])) || *end != '\0' || errno != 0 ||
        value < low || value > high)
        return fail_msg("--" + flag + ": want a whole number from " + std::to_string(low) + " to " +
                        std::to_string(high) + ", not \"" + text + "\"");
    return value;
}

Result<std::uint64_t> size_flag(const std::string& flag, const std::string& text) {
    auto size = parse_size(text);
    if (!size) return fail_msg("--" + flag + ": " + size.error().message());
    if (*size == 0) return fail_msg("--" + flag + ": must be greater than 0");
    return *size;
}

Result<double> cpus_flag(const std::string& text) {
    char* end = nullptr;
    double value = std::strtod(text.c_str(), &end);
    if (text.empty() || *end != '\0' || !std::isfinite(value) || value < 0.01 || value > 1e6)
        return fail_msg("--cpus: want a number of CPUs of at least 0.01, not \"" + text + "\"");
    return value;
}

}  // namespace husk::cli
