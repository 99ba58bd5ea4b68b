// Fuzz target: a state record (<root>/<id>/state.json) as every command after create decodes it. A record
// that decodes must survive a round trip: decode(encode(r)) == r, else husk would change what it stored on
// the next write, and a record read back by the thread that wrote it (state_dir.cpp, known_record) would differ
// from the one another process decodes.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "state/record.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    auto record = husk::state::decode_record(std::string_view(reinterpret_cast<const char*>(data), size));
    if (!record) return 0;
    std::string once = husk::state::encode_record(*record);
    auto again = husk::state::decode_record(once);
    if (!again) {
        std::fprintf(stderr, "state record: re-decoding an encoded record failed: %s\n", again.error().what);
        std::abort();
    }
    if (*again != *record || husk::state::encode_record(*again) != once) {
        std::fprintf(stderr, "state record: encode/decode round trip changed the record:\n%s\n", once.c_str());
        std::abort();
    }
    return 0;
}
