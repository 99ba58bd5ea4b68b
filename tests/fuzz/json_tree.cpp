// Fuzz target: husk's JSON reader (base/json_tree.hpp). The plain-shape reader must read a text exactly as
// yajl does or leave it to yajl, so parse_json_tree gives, for any input, yajl's tree or yajl's error.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "base/json_tree.hpp"

namespace {

[[noreturn]] void fail(const char* what, std::string_view text) {
    std::fprintf(stderr, "json tree: %s for: %.*s\n", what, static_cast<int>(text.size()), text.data());
    std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    auto yajl = husk::parse_json_tree_with_yajl(text);
    if (auto plain = husk::parse_plain_json(text)) {
        if (!yajl) fail("the plain reader accepted what yajl refuses", text);
        if (!husk::same_json(plain->get(), yajl->get())) fail("the plain reader's tree differs from yajl's", text);
    }
    auto tree = husk::parse_json_tree(text);
    if (tree.has_value() != yajl.has_value()) fail("parse_json_tree and yajl disagree on accepting", text);
    if (!tree && tree.error().message() != yajl.error().message()) fail("the error differs from yajl's", text);
    return 0;
}
