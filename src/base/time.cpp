#include "base/time.hpp"

#include <cstdio>

namespace husk {

std::string rfc3339_nano(const timespec& ts) {
    tm utc{};
    gmtime_r(&ts.tv_sec, &utc);
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%04d-%02d-%02dT%02d:%02d:%02d.%09ldZ", utc.tm_year + 1900, utc.tm_mon + 1,
                  utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec, ts.tv_nsec);
    return buffer;
}

std::string now_rfc3339_nano() {
    timespec ts{};
    clock_gettime(CLOCK_REALTIME, &ts);
    return rfc3339_nano(ts);
}

std::optional<std::int64_t> parse_rfc3339_usec(std::string_view text) {
    if (text.size() != 30 || text[19] != '.' || text[29] != 'Z') return std::nullopt;
    std::string copy(text);
    tm utc{};
    long nanoseconds = 0;
    int consumed = 0;
    if (std::sscanf(copy.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d.%9ld%n", &utc.tm_year, &utc.tm_mon, &utc.tm_mday,
                    &utc.tm_hour, &utc.tm_min, &utc.tm_sec, &nanoseconds, &consumed) != 7 || consumed != 29)
        return std::nullopt;
    utc.tm_year -= 1900;
    utc.tm_mon -= 1;
    return static_cast<std::int64_t>(timegm(&utc)) * 1000000 + nanoseconds / 1000;
}

}  // namespace husk
