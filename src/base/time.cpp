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

}  // namespace husk
