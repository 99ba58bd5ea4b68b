#include "cli/options.hpp"

#include <catch2/catch.hpp>
#include <deque>
#include <optional>

namespace husk::cli {
namespace {

constexpr Option table[] = {
    {"bundle", 'b', Takes::text, "bundle directory", ""},
    {"detach", 'd', Takes::nothing, "return at once"},
    {"tty", 't', Takes::nothing, "allocate a terminal"},
    {"env", 'e', Takes::texts, "a variable (repeatable)"},
    {"preserve-fds", 0, Takes::int_number, "pass fds", "0"},
    {"runs", 0, Takes::uint64_number, "runs started"},
    {"gid", 'g', Takes::uint32_numbers, "a gid (repeatable)"},
    {"cpu-share", 0, Takes::text, "shares"},
    {"cpu-shares", 0, Takes::text, "the same"},
    {"id", 0, Takes::text},
};
constexpr std::string_view id_operand[] = {"id"};

// The values are views into the words (options.hpp), so the words are kept for the rest of the test run.
Result<OptionValues> parse(std::vector<std::string> words, Operands operands = {.names = id_operand}) {
    static std::deque<std::vector<std::string>> kept;
    kept.push_back(std::move(words));
    return parse_options({table}, operands, kept.back());
}

std::string usage_error(std::vector<std::string> words, Operands operands = {.names = id_operand}) {
    auto parsed = parse(std::move(words), operands);
    REQUIRE_FALSE(parsed);
    return parsed.error().message();
}

}  // namespace

TEST_CASE("an option's value follows it as the next word, after '=', or after its short name", "[cli]") {
    for (const auto& words : std::vector<std::vector<std::string>>{
             {"--bundle", "/b"}, {"--bundle=/b"}, {"-b", "/b"}, {"-b/b"}, {"--bun", "/b"}, {"--b=/b"}}) {
        auto parsed = parse(words);
        REQUIRE(parsed);
        CHECK(parsed->text("bundle") == "/b");
    }
    auto parsed = parse({"-b=/b"});
    REQUIRE(parsed);
    CHECK(parsed->text("bundle") == "=/b");  // as Boost read it: the rest of the word
}

TEST_CASE("short flags group in one word, the last of them may take the rest as its value", "[cli]") {
    auto parsed = parse({"-tdbx", "c1"});
    REQUIRE(parsed);
    CHECK(parsed->has("tty"));
    CHECK(parsed->has("detach"));
    CHECK(parsed->text("bundle") == "x");
    CHECK(parsed->text("id") == "c1");
    CHECK(usage_error({"-tx"}) == "unrecognised option '-tx'");
    CHECK(usage_error({"-t=1"}) == "unrecognised option '-t=1'");
}

TEST_CASE("an option not given is absent unless it has a default", "[cli]") {
    auto parsed = parse({});
    REQUIRE(parsed);
    CHECK_FALSE(parsed->has("detach"));
    CHECK_FALSE(parsed->has("id"));
    CHECK(parsed->text("id").empty());
    CHECK(parsed->has("bundle"));  // its default is "", which --help does not show
    CHECK(parsed->text("bundle").empty());
    CHECK(parsed->int_number("preserve-fds") == 0);
}

TEST_CASE("an abbreviation names the one long option it starts, and an exact name wins over longer ones", "[cli]") {
    auto parsed = parse({"--pres", "3", "--cpu-share", "5"});
    REQUIRE(parsed);
    CHECK(parsed->int_number("preserve-fds") == 3);
    CHECK(parsed->text("cpu-share") == "5");
    CHECK_FALSE(parsed->has("cpu-shares"));
    CHECK(usage_error({"--cpu-s", "5"}) ==
          "option '--cpu-s' is ambiguous and matches '--cpu-share', and '--cpu-shares'");
    CHECK(usage_error({"--cp=5"}) == "option '--cp=5' is ambiguous and matches '--cpu-share', and '--cpu-shares'");
}

TEST_CASE("the parser's usage errors are Boost.Program_options' messages", "[cli]") {
    CHECK(usage_error({"--bogus=1"}) == "unrecognised option '--bogus=1'");
    CHECK(usage_error({"-x"}) == "unrecognised option '-x'");
    CHECK(usage_error({"--bundle"}) == "the required argument for option '--bundle' is missing");
    CHECK(usage_error({"-b"}) == "the required argument for option '--bundle' is missing");
    CHECK(usage_error({"--bundle="}) ==
          "the argument for option '--bundle' should follow immediately after the equal sign");
    CHECK(usage_error({"--="}) == "the argument for option should follow immediately after the equal sign");
    CHECK(usage_error({"--detach=1"}) == "option '--detach' does not take any arguments");
    CHECK(usage_error({"-d", "--det"}) == "option '--detach' cannot be specified more than once");
    CHECK(usage_error({"-b", "x", "--bundle", "y"}) == "option '--bundle' cannot be specified more than once");
    CHECK(usage_error({"a", "--id", "b"}) == "option '--id' cannot be specified more than once");
    CHECK(usage_error({"a", "b"}) == "too many positional options have been specified on the command line");
    CHECK(usage_error({"--preserve-fds", "x"}) == "the argument ('x') for option '--preserve-fds' is invalid");
    CHECK(usage_error({"--preserve-fds", ""}) == "the argument for option '--preserve-fds' is invalid");
}

TEST_CASE("the first error in the order of the words is the one reported", "[cli]") {
    // The words are read (unknown, missing, ambiguous) before values are stored (twice, invalid).
    CHECK(usage_error({"--preserve-fds", "x", "--bogus"}) == "unrecognised option '--bogus'");
    CHECK(usage_error({"--preserve-fds", "x", "-d", "-d"}) ==
          "the argument ('x') for option '--preserve-fds' is invalid");
    CHECK(usage_error({"a", "b", "--bogus"}) == "unrecognised option '--bogus'");
}

TEST_CASE("the next word is an option's value unless it is a known short option", "[cli]") {
    auto parsed = parse({"--bundle", "--detach"});
    REQUIRE(parsed);
    CHECK(parsed->text("bundle") == "--detach");
    CHECK_FALSE(parsed->has("detach"));
    parsed = parse({"--bundle", "--"});
    REQUIRE(parsed);
    CHECK(parsed->text("bundle") == "--");
    parsed = parse({"--bundle", "-x"});
    REQUIRE(parsed);
    CHECK(parsed->text("bundle") == "-x");
    CHECK(usage_error({"--bundle", "-d"}) == "the required argument for option '--bundle' is missing");
    CHECK(usage_error({"--bundle", "--x="}) ==
          "the argument for option '--bundle' should follow immediately after the equal sign");
}

TEST_CASE("repeatable options keep every value in order", "[cli]") {
    auto parsed = parse({"-e", "A=1", "--env=B=2", "-eC=3", "-g", "7", "--gid", "-1"});
    REQUIRE(parsed);
    CHECK(parsed->texts("env") == std::vector<std::string>{"A=1", "B=2", "C=3"});
    CHECK(parsed->uint32_numbers("gid") == std::vector<std::uint32_t>{7, 4294967295u});
    CHECK(parsed->texts("bundle") == std::vector<std::string>{""});
}

TEST_CASE("numbers read as Boost's lexical_cast read them", "[cli]") {
    const auto int_value = [](const std::string& text) -> std::optional<int> {
        auto parsed = parse({"--preserve-fds", text});
        return parsed ? std::optional(parsed->int_number("preserve-fds")) : std::nullopt;
    };
    CHECK(int_value("+7") == 7);
    CHECK(int_value("-0") == 0);
    CHECK(int_value("007") == 7);
    CHECK(int_value("2147483647") == 2147483647);
    CHECK(int_value("-2147483648") == -2147483647 - 1);
    for (const char* bad : {"", "+", "-", " 7", "7 ", "0x10", "1e3", "2147483648", "-2147483649", "--1"})
        CHECK_FALSE(int_value(bad));
    const auto uint64_value = [](const std::string& text) -> std::optional<std::uint64_t> {
        auto parsed = parse({"--runs", text});
        return parsed ? std::optional(parsed->uint64_number("runs")) : std::nullopt;
    };
    CHECK(uint64_value("18446744073709551615") == 18446744073709551615u);
    CHECK(uint64_value("-1") == 18446744073709551615u);
    CHECK(uint64_value("-18446744073709551615") == 1);
    CHECK_FALSE(uint64_value("18446744073709551616"));
    auto parsed = parse({"-g", "-4294967295"});
    REQUIRE(parsed);
    CHECK(parsed->uint32_numbers("gid") == std::vector<std::uint32_t>{1});
    CHECK(usage_error({"-g", "4294967296"}) == "the argument ('4294967296') for option '--gid' is invalid");
}

TEST_CASE("operands after -- are operands whatever they look like; --=VALUE is one too", "[cli]") {
    auto parsed = parse({"--", "-d"});
    REQUIRE(parsed);
    CHECK(parsed->text("id") == "-d");
    CHECK_FALSE(parsed->has("detach"));
    parsed = parse({"--=c1"});
    REQUIRE(parsed);
    CHECK(parsed->text("id") == "c1");
    parsed = parse({"a", "b", "c"}, {.extra = Operands::Extra::ignored});
    REQUIRE(parsed);
    CHECK_FALSE(parsed->has("id"));
    CHECK(parse({"---d"}));  // "---d" is -d, as Boost looked "-d" up among the long and short names
}

TEST_CASE("help lists the options in Boost's layout", "[cli]") {
    constexpr Option options[] = {
        {"bundle", 'b', Takes::text, "bundle directory", ""},
        {"format", 0, Takes::text, "table or json", "table"},
        {"quiet", 'q', Takes::nothing,
         "a help text long enough to wrap: it breaks after the last space in the second half of the line, and "
         "indents the lines after the first to the column"},
    };
    constexpr Option setting{"timeout", 0, Takes::text, "wall-time limit", nullptr, "run.husk."};
    // A group nested in the set moves the column one further (the next test).
    OptionSet set("Options");
    set.add(options).add_group("\nLimits").add_to_group(setting);
    CHECK(set.help() ==
          "Options:\n"
          "  -b [ --bundle ] arg    bundle directory\n"
          "  --format arg (=table)  table or json\n"
          "  -q [ --quiet ]         a help text long enough to wrap: it breaks after the \n"
          "                         last space in the second half of the line, and indents\n"
          "                         the lines after the first to the column\n"
          "\n"
          "\nLimits:\n"
          "  --timeout arg          wall-time limit (run.husk.timeout)\n");
}

TEST_CASE("help's column grows by one for each level a group is nested", "[cli]") {
    constexpr Option help{"help", 'h', Takes::nothing, "show this help"};
    constexpr Option quiet{"quiet", 'q', Takes::nothing, "print only the ids"};
    OptionSet verb;
    verb.add(quiet);
    OptionSet usage("Usage: husk list\n\nOptions");
    usage.add(help).add_set(verb);
    CHECK(usage.help() ==
          "Usage: husk list\n\nOptions:\n"
          "  -h [ --help ]          show this help\n"
          "\n"
          "  -q [ --quiet ]         print only the ids\n");
    CHECK(verb.find("quiet") == verb.options().data());
    CHECK(verb.find("-q") == verb.options().data());
    CHECK(verb.find("--quiet") == nullptr);
    CHECK(verb.find("qui") == nullptr);
}

TEST_CASE("help puts a help text under a name wider than the column", "[cli]") {
    constexpr Option wide{"a-very-long-option-name-for-the-column", 0, Takes::text, "help", "default"};
    CHECK(OptionSet().add(wide).help() ==
          "  --a-very-long-option-name-for-the-column arg (=default)\n"
          "                                        help\n");
}

}  // namespace husk::cli
