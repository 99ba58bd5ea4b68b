// ttrpc's framing (github.com/containerd/ttrpc, channel.go) and its envelope messages (types.go): a 10-byte
// header (payload length u32 big-endian, stream id u32 big-endian, type u8, flags u8), then the payload, a
// protobuf Request or Response.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "husk/error.hpp"

namespace husk::ttrpc {

inline constexpr std::size_t frame_header_size = 10;
inline constexpr std::size_t max_message = 4u << 20;  // ttrpc's messageLengthMax

enum class FrameType : std::uint8_t { request = 1, response = 2 };

struct Frame {
    std::uint32_t stream = 0;
    std::uint8_t type = 0;
    std::uint8_t flags = 0;
    std::string payload;
    bool oversized = false;
};

// Cuts a stream socket's bytes into frames: feed() what read() returned, then take frames with next().
// A frame longer than max_message comes out as {stream, type, flags, oversized = true, empty payload} once its
// bytes have gone by, so the connection stays usable, as ttrpc discards it and answers resource_exhausted.
// Its bytes are never held. Only the frame being read is held, plus complete frames not yet taken.
class FrameReader {
public:
    void feed(std::string_view bytes);
    std::optional<Frame> next();
    std::size_t buffered() const { return partial_.size() + ready_bytes_; }  // for a caller bounding memory

private:
    void finish(Frame frame);
    std::string partial_;  // the header, then the payload, of the frame being read
    bool have_header_ = false;
    Frame current_;        // stream, type and flags of the frame being read or discarded
    std::uint32_t length_ = 0;
    std::uint64_t discard_ = 0;  // bytes of an oversized frame still to skip
    std::deque<Frame> ready_;
    std::size_t ready_bytes_ = 0;
};

std::string encode_frame(std::uint32_t stream, FrameType type, std::string_view payload);

// ttrpc's Request: service=1, method=2, payload=3, timeout_nano=4, metadata=5 (KeyValue key=1 value=2).
struct Request {
    std::string service, method, payload;
    std::int64_t timeout_nano = 0;
    std::vector<std::pair<std::string, std::string>> metadata;
};
Result<Request> decode_request(std::string_view payload);
std::string encode_request(const Request& request);

// gRPC's status codes (google.rpc.Code).
enum class Code : std::int32_t {
    ok = 0,
    cancelled = 1,
    unknown = 2,
    invalid_argument = 3,
    deadline_exceeded = 4,
    not_found = 5,
    already_exists = 6,
    permission_denied = 7,
    resource_exhausted = 8,
    failed_precondition = 9,
    aborted = 10,
    out_of_range = 11,
    unimplemented = 12,
    internal = 13,
    unavailable = 14,
};

// ttrpc's Response (status=1, payload=2) with its google.rpc.Status (code=1 int32, message=2; details=3, a
// repeated Any, is never written and skipped when read).
struct Response {
    Code code = Code::ok;
    std::string message;
    std::string payload;
};
std::string encode_response(const Response& response);  // no status at all when code is ok and message empty
Result<Response> decode_response(std::string_view payload);

}  // namespace husk::ttrpc
