#include "cli/options.hpp"

#include <algorithm>
#include <array>
#include <limits>

namespace husk::cli {
namespace {

bool repeatable(const Option& option) {
    return option.takes == Takes::texts || option.takes == Takes::uint32_numbers;
}

bool numeric(const Option& option) {
    return option.takes == Takes::int_number || option.takes == Takes::uint64_number ||
           option.takes == Takes::uint32_numbers;
}

// A word the parser reads as a long option (`--name`, `--name=value`) or as short ones (`-n`, `-nvalue`, `-td`).
// "--" is neither, and "-" is an operand.
bool long_syntax(std::string_view word) { return word.size() >= 3 && word.starts_with("--"); }
bool short_syntax(std::string_view word) { return word.size() >= 2 && word[0] == '-' && word[1] != '-'; }

// Boost named an option in a message as "option '--name'", or as "option" alone when it had no name for it.
std::string option_named(std::string_view spelling) {
    if (spelling.empty()) return "option";
    return "option '" + std::string(spelling) + "'";
}

// The spelling of a known option in messages: its long name (Boost's "canonical" name, always with "--" in the
// unix style), from a name that may carry dashes itself ("---" stays as it is).
std::string canonical(std::string_view name) {
    const std::size_t start = name.find_first_not_of("-/");
    return "--" + std::string(start == std::string_view::npos ? name : name.substr(start));
}

// Boost.Program_options' messages, word for word.
Error unknown_option(std::string_view original) {
    return Error::msg("unrecognised " + option_named(original));
}

Error ambiguous_option(std::string_view original, std::vector<std::string_view> matches) {
    const std::size_t candidates = matches.size();
    std::ranges::sort(matches);
    matches.erase(std::ranges::unique(matches).begin(), matches.end());
    std::string text = option_named(original) + " is ambiguous and matches ";
    for (std::size_t i = 0; i + 1 < matches.size(); ++i) text += "'--" + std::string(matches[i]) + "', ";
    if (matches.size() > 1) text += "and ";
    if (candidates > 1 && matches.size() == 1) text += "different versions of ";  // one name twice in the tables
    text += "'--" + std::string(matches.back()) + "'";
    return Error::msg(text);
}

Error missing_value(std::string_view name) {
    return Error::msg("the required argument for " + option_named(canonical(name)) + " is missing");
}

Error empty_value_after_equals(std::string_view name) {
    return Error::msg("the argument for " + option_named(name.empty() ? "" : canonical(name)) +
                      " should follow immediately after the equal sign");
}

Error value_for_flag(std::string_view name) {
    return Error::msg(option_named(canonical(name)) + " does not take any arguments");
}

Error given_twice(std::string_view name) {
    return Error::msg(option_named(canonical(name)) + " cannot be specified more than once");
}

Error invalid_value(std::string_view name, std::string_view value) {
    const std::string argument = value.empty() ? "argument" : "argument ('" + std::string(value) + "')";
    return Error::msg("the " + argument + " for " + option_named(canonical(name)) + " is invalid");
}

// Boost read numbers with lexical_cast: one optional sign, then decimal digits only, the magnitude within the
// unsigned type of the target's width; a minus before an unsigned number wraps it around.
bool parse_number(std::string_view text, Takes takes, std::uint64_t& out) {
    const bool minus = text.starts_with('-');
    if (minus || text.starts_with('+')) text.remove_prefix(1);
    if (text.empty()) return false;
    std::uint64_t max = std::numeric_limits<std::uint64_t>::max();
    if (takes == Takes::uint32_numbers) max = std::numeric_limits<std::uint32_t>::max();
    if (takes == Takes::int_number)
        max = static_cast<std::uint64_t>(std::numeric_limits<int>::max()) + (minus ? 1 : 0);
    std::uint64_t magnitude = 0;
    for (char c : text) {
        if (c < '0' || c > '9') return false;
        const auto digit = static_cast<std::uint64_t>(c - '0');
        if (magnitude > (max - digit) / 10) return false;
        magnitude = magnitude * 10 + digit;
    }
    out = minus ? 0 - magnitude : magnitude;
    if (takes == Takes::uint32_numbers) out = static_cast<std::uint32_t>(out);
    return true;
}

// "-n" for the letter n: the name of a short option that follows others in its word ("-td").
std::string_view dashed(char letter) {
    static constexpr std::array<char, 512> spellings = [] {
        std::array<char, 512> all{};
        for (std::size_t i = 0; i < 256; ++i) {
            all[2 * i] = '-';
            all[2 * i + 1] = static_cast<char>(i);
        }
        return all;
    }();
    return {&spellings[2 * static_cast<unsigned char>(letter)], 2};
}

}  // namespace

// One parse: the words as Boost's cmdline read them (each option checked and given its value as it is met),
// then the values stored in order (repetition and conversion errors), then the defaults.
class OptionParser {
public:
    OptionParser(std::initializer_list<std::span<const Option>> tables, const Operands& operands,
                 std::span<const std::string> words)
        : tables_(tables), operands_(operands), words_(words) {}

    Result<OptionValues> run() {
        TRY(read_words());
        TRY(name_operands());
        TRY(store());
        store_defaults();
        return std::move(values_);
    }

private:
    // An option as met on the command line, or an operand (option == nullptr, named by name_operands).
    struct Occurrence {
        const Option* option = nullptr;
        std::string_view name = {};      // as written, without the first "--" (maybe abbreviated), or "-n"
        std::string_view value = {};
        bool has_value = false;
        std::string_view original = {};  // the word it came from; empty for all but the last of grouped flags
    };

    // Boost's find_nothrow: an exact long name, or a short one with its dash ("-n"), wins; else, with
    // `abbreviations`, a long name that starts with `name`, when exactly one does. More than one candidate is
    // ambiguous (the message names `original`).
    Result<const Option*> find(std::string_view name, bool abbreviations, std::string_view original) const {
        const auto exact = [name](const Option& option) {
            return option.name == name || (option.short_name != 0 && name.size() == 2 && name[0] == '-' &&
                                           name[1] == option.short_name);
        };
        const auto guessed = [name, abbreviations](const Option& option) {
            return abbreviations && option.name.starts_with(name);
        };
        const Option* found[2] = {};  // the last exact match, the last guess
        std::size_t exact_matches = 0, guesses = 0;
        for (std::span<const Option> table : tables_)
            for (const Option& option : table) {
                if (exact(option)) {
                    found[0] = &option;
                    ++exact_matches;
                } else if (guessed(option)) {
                    found[1] = &option;
                    ++guesses;
                }
            }
        if (exact_matches == 1 || (exact_matches == 0 && guesses <= 1)) return found[0] ? found[0] : found[1];
        std::vector<std::string_view> candidates;
        for (std::span<const Option> table : tables_)
            for (const Option& option : table)
                if (exact_matches > 1 ? exact(option) : guessed(option))
                    candidates.push_back(option.name);
        return fail(ambiguous_option(original, std::move(candidates)));
    }

    Result<void> read_words() {
        std::size_t next = 0;
        while (next < words_.size()) {
            const std::string_view word = words_[next++];
            if (long_syntax(word)) {
                Occurrence option{.name = word.substr(2), .original = word};
                if (const std::size_t equals = word.find('='); equals != std::string_view::npos) {
                    option.name = word.substr(2, equals - 2);
                    option.value = word.substr(equals + 1);
                    option.has_value = true;
                    if (option.value.empty()) return fail(empty_value_after_equals(option.name));
                }
                // "--=VALUE" names no option: Boost made VALUE an operand.
                if (option.name.empty()) {
                    found_.push_back({.value = option.value, .has_value = true, .original = word});
                    continue;
                }
                TRY(finish(option, next));
            } else if (short_syntax(word)) {
                TRY(read_short_options(word, next));
            } else if (word == "--") {
                for (; next < words_.size(); ++next)
                    found_.push_back({.value = words_[next], .has_value = true, .original = words_[next]});
            } else {
                found_.push_back({.value = word, .has_value = true, .original = word});
            }
        }
        return {};
    }

    // "-n", "-nVALUE", or flags grouped ("-td"): each letter a flag while more of the word follows it, then the
    // last one, with the rest of the word as its value.
    Result<void> read_short_options(std::string_view word, std::size_t& next) {
        for (std::size_t at = 1;; ++at) {
            const std::string_view name = dashed(word[at]);
            const std::string_view rest = word.substr(at + 1);
            const Option* known = TRY(find(name, false, name));
            if (known && known->takes == Takes::nothing && !rest.empty()) {
                std::size_t none = words_.size();
                TRY(finish({.name = name}, none));
                continue;
            }
            return finish({.name = name, .value = rest, .has_value = !rest.empty(), .original = word}, next);
        }
    }

    // Checks an option met on the command line and gives it its value: the one in its word, or the next word
    // (words_[next], then consumed) unless that is itself a known option.
    Result<void> finish(Occurrence occurrence, std::size_t& next) {
        const std::string_view original = occurrence.original.empty() ? occurrence.name : occurrence.original;
        const Option* option = TRY(find(occurrence.name, true, original));
        if (!option) return fail(unknown_option(original));
        occurrence.option = option;
        const bool flag = option->takes == Takes::nothing;
        if (occurrence.has_value && flag) return fail(value_for_flag(option->name));
        if (!flag && !occurrence.has_value) {
            if (next >= words_.size()) return fail(missing_value(option->name));
            const std::string_view value = words_[next];
            // Boost looked the next word up whole, dashes and all, so only a short option ("-h") is ever known
            // there and taken for an option; "--help" becomes the value. "--name=" is refused as on its own.
            if (long_syntax(value) && value.find('=') == value.size() - 1)
                return fail(empty_value_after_equals(option->name));
            if ((long_syntax(value) || short_syntax(value)) && TRY(find(value, true, value)))
                return fail(missing_value(option->name));
            occurrence.value = value;
            occurrence.has_value = true;
            ++next;
        }
        found_.push_back(occurrence);
        return {};
    }

    // Each operand becomes the value of the option operands_ names at its position.
    Result<void> name_operands() {
        std::size_t position = 0;
        for (Occurrence& occurrence : found_) {
            if (occurrence.option) continue;
            if (position >= operands_.names.size()) {
                if (operands_.extra == Operands::Extra::ignored) continue;
                return fail_msg("too many positional options have been specified on the command line");
            }
            occurrence.option = TRY(find(operands_.names[position++], false, {}));
        }
        return {};
    }

    Result<void> store() {
        for (const Occurrence& occurrence : found_) {
            const Option* option = occurrence.option;
            if (!option) continue;  // an operand dropped
            if (!repeatable(*option) && values_.first(option->name)) return fail(given_twice(option->name));
            OptionValues::Value value{.name = option->name, .text = occurrence.value};
            if (numeric(*option) && !parse_number(occurrence.value, option->takes, value.number))
                return fail(invalid_value(option->name, occurrence.value));
            values_.values_.push_back(value);
        }
        return {};
    }

    void store_defaults() {
        for (std::span<const Option> table : tables_)
            for (const Option& option : table) {
                if (!option.default_value || values_.first(option.name)) continue;
                OptionValues::Value value{.name = option.name, .text = option.default_value};
                if (numeric(option)) (void)parse_number(value.text, option.takes, value.number);
                values_.values_.push_back(value);
            }
    }

    std::initializer_list<std::span<const Option>> tables_;
    const Operands& operands_;
    std::span<const std::string> words_;
    std::vector<Occurrence> found_;
    OptionValues values_;
};

Result<OptionValues> parse_options(std::initializer_list<std::span<const Option>> tables, const Operands& operands,
                                   std::span<const std::string> words) {
    return OptionParser(tables, operands, words).run();
}

const OptionValues::Value* OptionValues::first(std::string_view name) const {
    for (const Value& value : values_)
        if (value.name == name) return &value;
    return nullptr;
}

bool OptionValues::has(std::string_view name) const { return first(name) != nullptr; }

std::string OptionValues::text(std::string_view name) const {
    const Value* value = first(name);
    return value ? std::string(value->text) : std::string();
}

int OptionValues::int_number(std::string_view name) const {
    const Value* value = first(name);
    return value ? static_cast<int>(static_cast<std::int64_t>(value->number)) : 0;
}

std::uint64_t OptionValues::uint64_number(std::string_view name) const {
    const Value* value = first(name);
    return value ? value->number : 0;
}

std::vector<std::string> OptionValues::texts(std::string_view name) const {
    std::vector<std::string> out;
    for (const Value& value : values_)
        if (value.name == name) out.emplace_back(value.text);
    return out;
}

std::vector<std::uint32_t> OptionValues::uint32_numbers(std::string_view name) const {
    std::vector<std::uint32_t> out;
    for (const Value& value : values_)
        if (value.name == name) out.push_back(static_cast<std::uint32_t>(value.number));
    return out;
}

}  // namespace husk::cli
