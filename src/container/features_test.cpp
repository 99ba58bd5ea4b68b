#include <algorithm>
#include <catch2/catch.hpp>

#include "husk/container.hpp"
#include "seccomp/names.hpp"
#include "base/json_reader.hpp"

namespace {

std::vector<std::string> string_list(const husk::json::Node& node) {
    std::vector<std::string> out;
    REQUIRE(husk::json::read(node, out));
    return out;
}

}  // namespace

TEST_CASE("the features document lists the seccomp names husk resolves and the flags this kernel takes", "[cli][seccomp]") {
    std::string json = husk::features_json();
    auto tree = husk::json::parse_tree(json);
    REQUIRE(tree);
    auto seccomp = husk::json::Node(tree->get(), "").field("linux").field("seccomp");
    CHECK(seccomp.field("enabled").as_bool() == true);
    auto actions = string_list(seccomp.field("actions"));
    CHECK(actions.size() == 9);
    for (const auto& action : actions) CHECK(husk::seccomp::find_action(action));
    auto operators = string_list(seccomp.field("operators"));
    CHECK(operators.size() == 7);
    for (const auto& op : operators) CHECK(husk::seccomp::find_operator(op));
    auto archs = string_list(seccomp.field("archs"));
    CHECK(std::find(archs.begin(), archs.end(), "SCMP_ARCH_X86_64") != archs.end());
    for (const auto& arch : archs) CHECK(husk::seccomp::find_arch(arch));
    auto known = string_list(seccomp.field("knownFlags"));
    CHECK(known == std::vector<std::string>{"SECCOMP_FILTER_FLAG_TSYNC", "SECCOMP_FILTER_FLAG_LOG",
                                            "SECCOMP_FILTER_FLAG_SPEC_ALLOW", "SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV"});
    auto supported = string_list(seccomp.field("supportedFlags"));
    for (const auto& flag : supported) CHECK(std::find(known.begin(), known.end(), flag) != known.end());
    CHECK(supported == known);  // Linux 6.18 has them all
}

TEST_CASE("the features document lists every run.husk annotation, the network policy's included", "[cli][net-allow]") {
    auto tree = husk::json::parse_tree(husk::features_json());
    REQUIRE(tree);
    std::string known = husk::json::Node(tree->get(), "").field("annotations").field("run.husk.annotations").as_string().value();
    for (const char* annotation : {"run.husk.timeout", "run.husk.tenant", "run.husk.net-allow", "run.husk.net-ops",
                                   "run.husk.net-ops-kill", "run.husk.address-space"})
        CHECK(("," + known + ",").find(std::string(",") + annotation + ",") != std::string::npos);
}
