// Fuzz target: bytes from the shim's ttrpc socket. The input goes to FrameReader in chunks whose sizes the
// input's first byte picks, and must come out as the same frames as when fed whole; every frame's payload, its
// Request's payload and the raw input then go through every decoder. A Request or Response that decodes must
// survive a round trip through its encoder.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "ttrpc/frame.hpp"
#include "ttrpc/task_api.hpp"

namespace {

using namespace husk::ttrpc;

[[noreturn]] void fail(const char* what) {
    std::fprintf(stderr, "ttrpc: %s\n", what);
    std::abort();
}

// Every decoder of a task API message.
void decode_payload(std::string_view data) {
    (void)decode_create_task_request(data);
    (void)decode_id_request(data);
    (void)decode_exec_process_request(data);
    (void)decode_resize_pty_request(data);
    (void)decode_kill_request(data);
    (void)decode_close_io_request(data);
    (void)decode_checkpoint_task_request(data);
    (void)decode_update_task_request(data);
    (void)decode_shutdown_request(data);
    (void)decode_any(data);
    (void)decode_mount(data);
    (void)decode_timestamp(data);
}

// The input as an envelope (Request, Response), and as each message inside one.
void decode_everything(std::string_view data) {
    decode_payload(data);
    if (auto response = decode_response(data)) {
        auto again = decode_response(encode_response(*response));
        if (!again || again->code != response->code || again->message != response->message ||
            again->payload != response->payload)
            fail("a Response changed in an encode/decode round trip");
    }
    if (auto request = decode_request(data)) {
        std::string once = encode_request(*request);
        auto again = decode_request(once);
        if (!again || encode_request(*again) != once) fail("a Request changed in an encode/decode round trip");
        decode_payload(request->payload);
    }
}

std::vector<Frame> frames_of(FrameReader& reader) {
    std::vector<Frame> frames;
    while (auto frame = reader.next()) frames.push_back(std::move(*frame));
    return frames;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string_view input(reinterpret_cast<const char*>(data), size);
    decode_everything(input);

    FrameReader whole;
    whole.feed(input);
    std::vector<Frame> expected = frames_of(whole);

    // Chunks of 1 to 16 bytes, cycling through sizes taken from the first byte, taking frames as they come.
    FrameReader chunked;
    std::vector<Frame> got;
    unsigned step = size > 0 ? static_cast<std::uint8_t>(input[0]) : 0;
    for (std::size_t at = 0; at < size;) {
        std::size_t chunk = 1 + (step++ % 16);
        chunked.feed(input.substr(at, chunk));
        at += chunk;
        for (auto& frame : frames_of(chunked)) got.push_back(std::move(frame));
        if (chunked.buffered() > size) fail("the frame reader holds more than it was fed");
    }
    if (got.size() != expected.size()) fail("chunked feeding gave another number of frames");
    for (std::size_t i = 0; i < got.size(); ++i) {
        const Frame& a = got[i];
        const Frame& b = expected[i];
        if (a.stream != b.stream || a.type != b.type || a.flags != b.flags || a.payload != b.payload ||
            a.oversized != b.oversized)
            fail("chunked feeding gave another frame");
        if (a.payload.size() > max_message) fail("a frame over max_message came out");
        decode_everything(a.payload);
    }
    return 0;
}
