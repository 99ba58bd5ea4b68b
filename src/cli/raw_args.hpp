// The one reader of a command line's raw words, for where the option parser (cli/options.hpp) cannot be asked:
// before main (the re-exec from `.preinit_array` needs the verb: C strings only, no allocation, noexcept), where
// options end and a program's own words begin (`husk sandbox ... -- PROGRAM`, `husk exec ... ID COMMAND`), and the
// verdict flags of a command line the parser refused. It knows the shape of words, not husk's options: the caller
// says which options take a value.
#pragma once

#include <cstddef>
#include <iterator>
#include <string_view>

namespace husk::cli {

// One word as the scanner sees it: an option (`--name`, `-n`, `--name=value`, or the option with the next word as
// its value) or an operand (a word that is neither an option nor an option's value; "-" is one).
struct RawWord {
    std::size_t index = 0;       // of the option's or the operand's word
    bool operand = false;
    std::string_view spelling;   // the option up to any '=' ("--root", "-p"), or the operand
    std::string_view value;      // the option's value: after '=', or the next word
    bool has_value = false;
};

// Whether the word after an option that takes a value may be that value when it looks like an option itself
// ("--verdict --keep"): taken, as the option parser takes it unless it is a known short option ("-d"), or refused,
// for a reader that takes no value it cannot be sure of. "--" is never a value here.
enum class DashedValue { taken, refused };

// Where the options end: at "--" (double_dash) or at the operand the visitor stopped at, or at the end.
struct OptionsEnd {
    std::size_t at = 0;
    bool double_dash = false;
    // The first word that is not an option: after "--", or the operand itself.
    std::size_t first_operand() const noexcept { return double_dash ? at + 1 : at; }
};

// The word as an option: its spelling and any `=value`; an operand when it is not one (`--` is neither:
// scan_raw_args stops there).
RawWord classify_raw_word(std::string_view word, std::size_t index) noexcept;

// Walks words[0..size) in order and calls visit(const RawWord&) for each option and operand until it returns
// false, or until "--". takes_value(std::string_view spelling) says whether an option given without `=value`
// takes the next word as its value. Words is any indexable range of what converts to std::string_view
// (`const char*`, std::string); nothing is allocated unless the callbacks allocate.
template <typename Words, typename TakesValue, typename Visit>
OptionsEnd scan_raw_args(const Words& words, const TakesValue& takes_value, DashedValue dashed, Visit&& visit) {
    const std::size_t size = std::size(words);
    for (std::size_t i = 0; i < size; ++i) {
        const std::string_view text = words[i];
        if (text == "--") return {i, true};
        RawWord word = classify_raw_word(text, i);
        if (!word.operand && !word.has_value && i + 1 < size && takes_value(word.spelling)) {
            const std::string_view next = words[i + 1];
            if (next != "--" && (dashed == DashedValue::taken || classify_raw_word(next, i + 1).operand)) {
                word.value = next;
                word.has_value = true;
                ++i;
            }
        }
        if (!visit(word)) return {word.index, false};
    }
    return {size, false};
}

// The usual question: where do the options end? (The first operand, or "--".)
template <typename Words, typename TakesValue>
OptionsEnd end_of_options(const Words& words, const TakesValue& takes_value, DashedValue dashed) {
    return scan_raw_args(words, takes_value, dashed, [](const RawWord& word) noexcept { return !word.operand; });
}

}  // namespace husk::cli
