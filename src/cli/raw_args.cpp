#include "cli/raw_args.hpp"

namespace husk::cli {

RawWord classify_raw_word(std::string_view word, std::size_t index) noexcept {
    RawWord out;
    out.index = index;
    out.spelling = word;
    if (word.size() < 2 || word[0] != '-') {
        out.operand = true;
        return out;
    }
    // `--name=value`: the value is in the word itself.
    if (const std::size_t equals = word.find('='); equals != std::string_view::npos) {
        out.spelling = word.substr(0, equals);
        out.value = word.substr(equals + 1);
        out.has_value = true;
    }
    return out;
}

}  // namespace husk::cli
