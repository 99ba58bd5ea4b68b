// Wall-clock timestamps in RFC 3339 with nanoseconds, as runc writes "created".
#pragma once

#include <ctime>
#include <string>

namespace husk {

std::string rfc3339_nano(const timespec& ts);
std::string now_rfc3339_nano();

}  // namespace husk
