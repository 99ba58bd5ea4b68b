#include "cli/raw_args.hpp"

#include <catch2/catch.hpp>

#include <span>
#include <string>
#include <string_view>
#include <vector>

using namespace husk::cli;

namespace {

// The options of a made-up verb: --root, --log and -p take a value; the rest do not.
bool takes_value(std::string_view spelling) {
    return spelling == "--root" || spelling == "--log" || spelling == "-p";
}

// Each word the scanner reports, as "option spelling=value", "option spelling" or "operand word".
std::vector<std::string> reported(const std::vector<std::string>& words, DashedValue dashed = DashedValue::taken) {
    std::vector<std::string> out;
    scan_raw_args(words, takes_value, dashed, [&](const RawWord& word) {
        std::string text = (word.operand ? "operand " : "option ") + std::string(word.spelling);
        if (word.has_value) text += "=" + std::string(word.value);
        out.push_back(std::to_string(word.index) + " " + text);
        return true;
    });
    return out;
}

}  // namespace

TEST_CASE("scan_raw_args reports options with their values, inline or the next word, and operands", "[cli]") {
    CHECK(reported({"--root", "/r", "--log=/l", "--debug", "create", "-p", "f", "id"}) ==
          std::vector<std::string>{"0 option --root=/r", "2 option --log=/l", "3 option --debug", "4 operand create",
                                   "5 option -p=f", "7 operand id"});
    CHECK(reported({"--debug=yes"}) == std::vector<std::string>{"0 option --debug=yes"});  // inline, asked or not
    CHECK(reported({"--root"}) == std::vector<std::string>{"0 option --root"});            // a value missing at the end
    CHECK(reported({"-", ""}) == std::vector<std::string>{"0 operand -", "1 operand "});     // not options
}

TEST_CASE("scan_raw_args stops at \"--\", which is never an option's value", "[cli]") {
    std::vector<std::string> words = {"--debug", "--root", "--", "--log", "x"};
    CHECK(reported(words) == std::vector<std::string>{"0 option --debug", "1 option --root"});
    const OptionsEnd end = end_of_options(words, takes_value, DashedValue::taken);
    CHECK(end.at == 2);
    CHECK(end.double_dash);
    CHECK(end.first_operand() == 3);
}

TEST_CASE("a value that looks like an option is taken or refused as the caller says", "[cli]") {
    CHECK(reported({"--root", "--debug"}) == std::vector<std::string>{"0 option --root=--debug"});
    CHECK(reported({"--root", "--debug"}, DashedValue::refused) ==
          std::vector<std::string>{"0 option --root", "1 option --debug"});
    CHECK(reported({"--root", "-"}, DashedValue::refused) == std::vector<std::string>{"0 option --root=-"});
}

TEST_CASE("end_of_options is the first operand or \"--\", over std::string or C strings alike", "[cli]") {
    // find_verb's use: argv after the program name, C strings, no allocation.
    const char* argv[] = {"--root", "/run/x", "--debug", "run", "--bundle", "b"};
    const OptionsEnd verb = end_of_options(std::span<const char* const>(argv), takes_value, DashedValue::taken);
    CHECK(verb.at == 3);
    CHECK_FALSE(verb.double_dash);
    CHECK(verb.first_operand() == 3);
    const char* dashed[] = {"--log", "/l", "--", "create"};
    CHECK(end_of_options(std::span<const char* const>(dashed), takes_value, DashedValue::taken).first_operand() == 3);
    const char* none[] = {"--debug", "--root=/r"};
    CHECK(end_of_options(std::span<const char* const>(none), takes_value, DashedValue::taken).at == 2);
    // husk sandbox's use: the program's own options are not read ("-p" after the program is its word).
    const std::vector<std::string> sandbox = {"--root", "/r", "prog", "-p", "--", "x"};
    const OptionsEnd program = end_of_options(sandbox, takes_value, DashedValue::taken);
    CHECK(program.at == 2);
    CHECK_FALSE(program.double_dash);
    // husk exec's use: a short option's value before the id, then the command.
    const std::vector<std::string> exec = {"-p", "process.json", "-t", "c1", "sh", "-c", "echo"};
    CHECK(end_of_options(exec, takes_value, DashedValue::taken).first_operand() == 3);
}
