#include "ttrpc/types.hpp"

#include <ctime>

#include "ttrpc/fields.hpp"
#include "ttrpc/protobuf.hpp"

namespace husk::ttrpc {

Timestamp timestamp_now() {
    timespec now{};
    clock_gettime(CLOCK_REALTIME, &now);
    return {static_cast<std::int64_t>(now.tv_sec), static_cast<std::int32_t>(now.tv_nsec)};
}

std::string encode(const Timestamp& timestamp) {
    ProtoWriter out;
    out.int64(1, timestamp.seconds);
    out.int64(2, timestamp.nanos);
    return out.take();
}

std::string encode(const Any& any) {
    ProtoWriter out;
    out.string(1, any.type_url);
    out.string(2, any.value);
    return out.take();
}

std::string encode(const Mount& mount) {
    ProtoWriter out;
    out.string(1, mount.type);
    out.string(2, mount.source);
    out.string(3, mount.target);
    for (const auto& option : mount.options) out.string_always(4, option);
    return out.take();
}

Result<Timestamp> decode_timestamp(std::string_view data) {
    Timestamp timestamp;
    ProtoReader reader(data);
    while (auto field = TRY(next_field(reader, "Timestamp"))) {
        if (field->number == 1)
            timestamp.seconds = static_cast<std::int64_t>(TRY(uint_of(*field, "Timestamp.seconds")));
        else if (field->number == 2)
            timestamp.nanos = static_cast<std::int32_t>(TRY(uint_of(*field, "Timestamp.nanos")));
    }
    return timestamp;
}

Result<std::pair<std::string, std::string>> decode_string_pair(std::string_view data, std::string_view message) {
    std::pair<std::string, std::string> entry;
    ProtoReader reader(data);
    while (auto field = TRY(next_field(reader, message))) {
        if (field->number == 1) entry.first = TRY(bytes_of(*field, std::string(message) + ".key"));
        else if (field->number == 2) entry.second = TRY(bytes_of(*field, std::string(message) + ".value"));
    }
    return entry;
}

Result<Any> decode_any(std::string_view data) {
    return decode_fields<Any>(data, "Any", {{1, "type_url", &Any::type_url}, {2, "value", &Any::value}});
}

Result<Mount> decode_mount(std::string_view data) {
    return decode_fields<Mount>(data, "Mount", {{1, "type", &Mount::type},
                                                {2, "source", &Mount::source},
                                                {3, "target", &Mount::target},
                                                {4, "options", &Mount::options}});
}

}  // namespace husk::ttrpc
