#include "base/time.hpp"

#include <cstdio>

namespace husk {

std::string rfc3339_nano(const timespec& ts) {
    tm utc{};
    gmtime_r(&ts.tv_sec, &utc);
    // "%04d-%02d-%02dT%02d:%02d:%02d.%09ldZ" by hand: a record is written three times per `husk run`, and
    // snprintf's format interpretation cost more than the rest of the record's encoding of a date.
    std::string text(30, '0');
    auto put = [&text](std::size_t at, std::size_t width, long value) {
        for (std::size_t i = at + width; i > at; value /= 10) text[--i] = static_cast<char>('0' + value % 10);
    };
    const int year = utc.tm_year + 1900;
    if (year < 0 || year > 9999 || ts.tv_nsec < 0 || ts.tv_nsec > 999999999) {
        char buffer[64];
        std::snprintf(buffer, sizeof buffer, "%04d-%02d-%02dT%02d:%02d:%02d.%09ldZ", year, utc.tm_mon + 1,
                      utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec, ts.tv_nsec);
        return buffer;
    }
    put(0, 4, year);
    text[4] = '-';
    put(5, 2, utc.tm_mon + 1);
    text[7] = '-';
    put(8, 2, utc.tm_mday);
    text[10] = 'T';
    put(11, 2, utc.tm_hour);
    text[13] = ':';
    put(14, 2, utc.tm_min);
    text[16] = ':';
    put(17, 2, utc.tm_sec);
    text[19] = '.';
    put(20, 9, ts.tv_nsec);
    text[29] = 'Z';
    return text;
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
