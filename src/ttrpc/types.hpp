// The messages every part of the task API shares: google.protobuf.Timestamp and Any, containerd.types.Mount.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "husk/error.hpp"

namespace husk::ttrpc {

struct Timestamp {  // google.protobuf.Timestamp: seconds=1, nanos=2
    std::int64_t seconds = 0;
    std::int32_t nanos = 0;
};
Timestamp timestamp_now();  // CLOCK_REALTIME

struct Any {  // google.protobuf.Any: type_url=1, value=2
    std::string type_url, value;
};

struct Mount {  // containerd.types.Mount (api/types/mount.proto)
    std::string type, source, target;
    std::vector<std::string> options;
};

std::string encode(const Timestamp& timestamp);
std::string encode(const Any& any);
std::string encode(const Mount& mount);
Result<Timestamp> decode_timestamp(std::string_view data);
Result<Any> decode_any(std::string_view data);
Result<Mount> decode_mount(std::string_view data);

}  // namespace husk::ttrpc
