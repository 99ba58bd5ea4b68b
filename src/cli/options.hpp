// husk's command-line options: tables of them, the parse of a command line against a table, and the --help text.
// It reads and prints as Boost.Program_options' default (unix) style did when husk used it, so that scripts, the
// completion and husk(8) see the same command line (docs/design.md, "The command line", also for the two
// differences): `--name VALUE`, `--name=VALUE`, `-n VALUE`, `-nVALUE`, grouped short flags (`-td`), unambiguous
// abbreviations of long names (`--bund`), `--` ending the options, and Boost's messages for a command line it
// refuses.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "husk/error.hpp"

namespace husk::cli {

// What follows an option on the command line.
enum class Takes : std::uint8_t {
    nothing,         // a flag, given at most once
    text,            // one word, given at most once
    int_number,      // one int: an optional sign and decimal digits
    uint64_number,   // one std::uint64_t; "-N" wraps around (2^64 - N), as Boost's lexical_cast read it
    texts,           // one word each time the option is given
    uint32_numbers,  // one std::uint32_t each time the option is given ("-N" wraps as above)
};

// One option: a row of a constexpr table.
struct Option {
    std::string_view name;  // the long name, without "--"
    char short_name = 0;    // the n of -n; 0 for none
    Takes takes = Takes::nothing;
    std::string_view help = {};
    // The value when the option is not given (a number as its text); --help shows it as "(=VALUE)" unless empty.
    const char* default_value = nullptr;
    // When set, --help adds " (<annotation><name>)" to the help: the run.husk.* annotation a setting's flag sets.
    std::string_view annotation = {};
};

// A verb's options as --help lists them: its own, then groups of options under a caption each.
class OptionSet {
public:
    explicit OptionSet(std::string_view caption = {});

    // Options of the set itself, listed before the groups whenever they are added.
    OptionSet& add(std::span<const Option> options);
    OptionSet& add(const Option& option) { return add(std::span<const Option>(&option, 1)); }
    // A new group, listed after the set's own options and the groups before it, under its caption.
    OptionSet& add_group(std::string_view caption);
    // Options of the last group added.
    OptionSet& add_to_group(std::span<const Option> options);
    OptionSet& add_to_group(const Option& option) { return add_to_group(std::span<const Option>(&option, 1)); }
    // Every option of `other` (its caption, its own options and its groups) as one group of this set, listed
    // with a blank line before it: how a verb's usage wraps the verb's options.
    OptionSet& add_set(const OptionSet& other);

    std::span<const Option> options() const { return options_; }
    // The option named exactly so: a long name without dashes ("cwd") or a short one with its dash ("-e").
    const Option* find(std::string_view name) const;
    // The list --help prints: "CAPTION:" and one line per option, its help in a column wrapped at 80 columns.
    std::string help() const;

private:
    // The options of a section are listed under its caption; a nested section (depth > 0: a group) after a blank
    // line. Sections are kept in the order they are listed, each followed by the groups nested in it.
    struct Section {
        std::string_view caption;
        std::uint8_t depth = 0;
    };
    std::size_t column(std::size_t& section, std::span<const std::size_t> widest) const;
    std::vector<Option> options_;
    std::vector<std::uint8_t> section_of_;  // per option, the index in sections_
    std::vector<Section> sections_;
};

// The values of a parsed command line, each option's under its long name. An option that was not given but has a
// default counts as present with it (as Boost's variables_map did).
class OptionValues {
public:
    // Given, or has a default.
    bool has(std::string_view name) const;
    // The value of a text or number option; "" when it is absent.
    std::string text(std::string_view name) const;
    int int_number(std::string_view name) const;
    std::uint64_t uint64_number(std::string_view name) const;
    // The values of a repeatable option in the order given; none when it is absent.
    std::vector<std::string> texts(std::string_view name) const;
    std::vector<std::uint32_t> uint32_numbers(std::string_view name) const;

private:
    friend class OptionParser;
    struct Value {
        std::string_view name;
        std::string_view text;
        std::uint64_t number = 0;  // an int_number's two's complement
    };
    const Value* first(std::string_view name) const;
    std::vector<Value> values_;
};

// What becomes of the words that are not options (operands).
struct Operands {
    // The option each operand is the value of, in order ("id", then "signal").
    std::span<const std::string_view> names = {};
    // More operands than names: a usage error, or (for husk's global options, where Boost had no positional
    // description) dropped.
    enum class Extra : std::uint8_t { refused, ignored } extra = Extra::refused;
};

// Parses words (without the program or verb name) against the options of `tables` (searched together: the
// verb's, --help, the hidden ones operands are stored under). The values are views into `words` and the
// tables, which must outlive them. A usage error's message is Boost's ("unrecognised option '--bogus'").
Result<OptionValues> parse_options(std::initializer_list<std::span<const Option>> tables, const Operands& operands,
                                   std::span<const std::string> words);

}  // namespace husk::cli
