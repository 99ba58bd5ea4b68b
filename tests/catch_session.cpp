// Catch2's implementation, compiled once per build directory for both test programs, and their session with
// --shard K/N (catch_session.hpp).
#define CATCH_CONFIG_RUNNER
#include "catch_session.hpp"

#include <catch2/catch.hpp>

#include <cstdint>
#include <cstdio>
#include <set>
#include <string>

namespace husk::test {
namespace {

std::uint32_t name_hash(const std::string& name) {
    std::uint32_t hash = 2166136261u;
    for (unsigned char c : name) hash = (hash ^ c) * 16777619u;
    return hash;
}

// A test spec matching this one name: quoted, with what Catch2's spec parser treats specially inside quotes
// (the escape, the separator, the quote) escaped.
std::string exact_name_spec(const std::string& name) {
    std::string spec = "\"";
    for (char c : name) {
        if (c == '\\' || c == ',' || c == '"') spec += '\\';
        spec += c;
    }
    return spec + '"';
}

std::set<std::string> selected_names(Catch::Session& session) {
    Catch::Config& config = session.config();
    std::set<std::string> names;
    for (const Catch::TestCase& test : Catch::filterTests(Catch::getAllTestCasesSorted(config), config.testSpec(), config))
        names.insert(test.name);
    return names;
}

}  // namespace

int run_catch_session(int argc, char** argv) {
    Catch::Session session;
    std::string shard_arg;
    session.cli(session.cli() | Catch::clara::Opt(shard_arg, "k/n")["--shard"](
                                    "run only the k-th of n shares of the selected tests (by the hash of each name)"));
    if (int status = session.applyCommandLine(argc, argv); status != 0) return status;
    if (shard_arg.empty()) return session.run();

    unsigned index = 0, count = 0;
    char rest = 0;
    if (std::sscanf(shard_arg.c_str(), "%u/%u%c", &index, &count, &rest) != 2 || count == 0 || index == 0 ||
        index > count) {
        std::fprintf(stderr, "%s: --shard wants K/N with 1 <= K <= N, not '%s'\n", argv[0], shard_arg.c_str());
        return 1;
    }
    // A command line that selects nothing is left to Catch2, which says so.
    std::set<std::string> selected = selected_names(session);
    if (selected.empty()) return session.run();
    std::set<std::string> share;
    for (const std::string& name : selected)
        if (name_hash(name) % count == index - 1) share.insert(name);
    if (share.empty()) {
        std::fprintf(stderr, "%s: shard %u/%u: none of the %zu selected tests falls to this shard\n", argv[0], index,
                     count, selected.size());
        return 0;
    }
    // The share replaces the command line's selection (its other options stay), one exact name at a time.
    Catch::ConfigData data = session.configData();
    data.testsOrTags.clear();
    for (const std::string& name : share) {
        if (!data.testsOrTags.empty()) data.testsOrTags.emplace_back(",");
        data.testsOrTags.push_back(exact_name_spec(name));
    }
    session.useConfigData(data);
    // A name the spec cannot state exactly (a '*' at either end is a wildcard) would run more or fewer tests
    // than the share: refuse rather than lose a test.
    if (selected_names(session) != share) {
        std::fprintf(stderr, "%s: shard %u/%u: the share's names do not select exactly the share\n", argv[0], index,
                     count);
        return 1;
    }
    // On stderr: stdout may be a reporter's file (-r junit) or a listing.
    std::fprintf(stderr, "%s: shard %u/%u: %zu of the %zu selected tests\n", argv[0], index, count, share.size(),
                 selected.size());
    return session.run();
}

}  // namespace husk::test
