// Fuzz target: the run.husk.* annotation parser. The input is lines of KEY=VALUE (the annotation map, as
// config.json's annotations or `husk create --timeout ...` give it); the whole input is also read as one
// duration and one size, the two value grammars.
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "base/duration.hpp"
#include "base/size.hpp"
#include "spec/settings.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string_view text(reinterpret_cast<const char*>(data), size);
    (void)husk::parse_duration(text);
    (void)husk::parse_size(text);
    std::map<std::string, std::string> annotations;
    while (!text.empty()) {
        std::size_t end = text.find('\n');
        std::string_view line = text.substr(0, end);
        std::size_t eq = line.find('=');
        annotations[std::string(line.substr(0, eq))] = eq == std::string_view::npos ? "" : std::string(line.substr(eq + 1));
        text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    }
    (void)husk::spec::parse_husk_annotations(annotations);
    return 0;
}
