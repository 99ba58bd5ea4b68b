#include "ttrpc/frame.hpp"

#include <algorithm>

#include "ttrpc/fields.hpp"
#include "ttrpc/protobuf.hpp"

namespace husk::ttrpc {
namespace {

std::uint32_t read_be32(std::string_view bytes) {
    std::uint32_t value = 0;
    for (std::size_t i = 0; i < 4; ++i) value = (value << 8) | static_cast<std::uint8_t>(bytes[i]);
    return value;
}

void append_be32(std::string& out, std::uint32_t value) {
    for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<char>((value >> shift) & 0xff));
}

}  // namespace

void FrameReader::finish(Frame frame) {
    ready_bytes_ += frame.payload.size();
    ready_.push_back(std::move(frame));
}

void FrameReader::feed(std::string_view bytes) {
    while (!bytes.empty()) {
        if (discard_ > 0) {
            std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(discard_, bytes.size()));
            bytes.remove_prefix(n);
            discard_ -= n;
            if (discard_ == 0) finish(std::move(current_));
            continue;
        }
        if (!have_header_) {
            std::size_t n = std::min(frame_header_size - partial_.size(), bytes.size());
            partial_.append(bytes.substr(0, n));
            bytes.remove_prefix(n);
            if (partial_.size() < frame_header_size) continue;
            length_ = read_be32(partial_);
            current_ = Frame{};
            current_.stream = read_be32(std::string_view(partial_).substr(4));
            current_.type = static_cast<std::uint8_t>(partial_[8]);
            current_.flags = static_cast<std::uint8_t>(partial_[9]);
            partial_.clear();
            if (length_ > max_message) {
                current_.oversized = true;
                discard_ = length_;
            } else if (length_ == 0) {
                finish(std::move(current_));
            } else {
                have_header_ = true;
            }
            continue;
        }
        std::size_t n = std::min<std::size_t>(length_ - partial_.size(), bytes.size());
        partial_.append(bytes.substr(0, n));
        bytes.remove_prefix(n);
        if (partial_.size() == length_) {
            current_.payload = std::move(partial_);
            partial_.clear();
            have_header_ = false;
            finish(std::move(current_));
        }
    }
}

std::optional<Frame> FrameReader::next() {
    if (ready_.empty()) return std::nullopt;
    Frame frame = std::move(ready_.front());
    ready_.pop_front();
    ready_bytes_ -= frame.payload.size();
    return frame;
}

std::string encode_frame(std::uint32_t stream, FrameType type, std::string_view payload) {
    std::string out;
    out.reserve(frame_header_size + payload.size());
    append_be32(out, static_cast<std::uint32_t>(payload.size()));
    append_be32(out, stream);
    out.push_back(static_cast<char>(type));
    out.push_back(0);
    out.append(payload);
    return out;
}

Result<Request> decode_request(std::string_view payload) {
    Request request;
    ProtoReader reader(payload);
    while (auto field = TRY(next_field(reader, "Request"))) {
        switch (field->number) {
            case 1: request.service = TRY(bytes_of(*field, "Request.service")); break;
            case 2: request.method = TRY(bytes_of(*field, "Request.method")); break;
            case 3: request.payload = TRY(bytes_of(*field, "Request.payload")); break;
            case 4: request.timeout_nano = static_cast<std::int64_t>(TRY(uint_of(*field, "Request.timeout_nano"))); break;
            case 5: {
                std::string_view entry = TRY(bytes_of(*field, "Request.metadata"));
                request.metadata.push_back(TRY(within(decode_string_pair(entry, "KeyValue"), "Request.metadata")));
                break;
            }
            default: break;
        }
    }
    return request;
}

std::string encode_request(const Request& request) {
    ProtoWriter out;
    out.string(1, request.service);
    out.string(2, request.method);
    out.string(3, request.payload);
    out.int64(4, request.timeout_nano);
    for (const auto& [key, value] : request.metadata) {
        ProtoWriter entry;
        entry.string(1, key);
        entry.string(2, value);
        out.message(5, entry.data());
    }
    return out.take();
}

std::string encode_response(const Response& response) {
    ProtoWriter out;
    if (response.code != Code::ok || !response.message.empty()) {
        ProtoWriter status;
        status.int64(1, static_cast<std::int64_t>(response.code));
        status.string(2, response.message);
        out.message(1, status.data());
    }
    out.string(2, response.payload);
    return out.take();
}

namespace {

Result<void> decode_status(std::string_view data, Response& response) {
    ProtoReader reader(data);
    while (auto field = TRY(next_field(reader, "Status"))) {
        if (field->number == 1)
            response.code = static_cast<Code>(static_cast<std::int32_t>(TRY(uint_of(*field, "Status.code"))));
        else if (field->number == 2)
            response.message = TRY(bytes_of(*field, "Status.message"));
    }
    return {};
}

}  // namespace

Result<Response> decode_response(std::string_view payload) {
    Response response;
    ProtoReader reader(payload);
    while (auto field = TRY(next_field(reader, "Response"))) {
        if (field->number == 1) {
            std::string_view status = TRY(bytes_of(*field, "Response.status"));
            TRY(within(decode_status(status, response), "Response.status"));
        } else if (field->number == 2) {
            response.payload = TRY(bytes_of(*field, "Response.payload"));
        }
    }
    return response;
}

}  // namespace husk::ttrpc
