#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "spec/parse.hpp"

namespace {

using husk::spec::parse_config;

std::string with_landlock(const std::string& landlock) {
    return R"({"ociVersion": "1.3.0", "root": {"path": "rootfs"},
               "process": {"args": ["sh"], "cwd": "/", "landlock": )" + landlock + "}}";
}

std::string parse_error(const std::string& landlock) {
    auto spec = parse_config(with_landlock(landlock));
    REQUIRE_FALSE(spec);
    return spec.error().message();
}

std::vector<std::string> names(const std::vector<husk::spec::Landlock::Access>& list) {
    std::vector<std::string> out;
    for (const auto& access : list)
        out.push_back(access.name.empty() ? "#" + std::to_string(access.bits) : access.name);
    return out;
}

}  // namespace

TEST_CASE("parse_config reads process.landlock in the shape of the runtime-spec proposal", "[spec][landlock]") {
    auto spec = parse_config(with_landlock(R"({
      "ruleset": {"handledAccessFS": ["execute", "read_file", "write_file"],
                  "handledAccessNetwork": ["bind_tcp", "connect_tcp"], "scoped": ["signal"]},
      "rules": {"pathBeneath": [{"allowedAccess": ["execute", "read_file"], "paths": ["/usr", "/bin"]},
                                {"allowedAccess": ["write_file"], "paths": ["/tmp"]}],
                "netPort": [{"allowedAccess": ["connect_tcp"], "ports": [443, 80]}]},
      "disableBestEffort": true})"));
    REQUIRE(spec);
    CHECK(spec->unsupported.empty());
    const auto& landlock = spec->process->landlock.value();
    CHECK(names(landlock.handled_access_fs) == std::vector<std::string>{"execute", "read_file", "write_file"});
    CHECK(names(landlock.handled_access_network) == std::vector<std::string>{"bind_tcp", "connect_tcp"});
    CHECK(names(landlock.scoped) == std::vector<std::string>{"signal"});
    REQUIRE(landlock.path_beneath.size() == 2);
    CHECK(names(landlock.path_beneath[0].allowed_access) == std::vector<std::string>{"execute", "read_file"});
    CHECK(landlock.path_beneath[0].paths == std::vector<std::string>{"/usr", "/bin"});
    CHECK(landlock.path_beneath[1].paths == std::vector<std::string>{"/tmp"});
    REQUIRE(landlock.net_port.size() == 1);
    CHECK(landlock.net_port[0].ports == std::vector<std::uint16_t>{443, 80});
    CHECK(landlock.disable_best_effort == true);
}

TEST_CASE("parse_config takes numeric Landlock masks, per element or for a whole property", "[spec][landlock]") {
    auto spec = parse_config(with_landlock(R"({"ruleset": {"handledAccessFS": [1, "read_file", 1048576],
      "handledAccessNetwork": 3, "scoped": [2]},
      "rules": {"pathBeneath": [{"allowedAccess": 5, "paths": ["/"]}]}})"));
    REQUIRE(spec);
    const auto& landlock = *spec->process->landlock;
    CHECK(names(landlock.handled_access_fs) == std::vector<std::string>{"#1", "read_file", "#1048576"});
    CHECK(names(landlock.handled_access_network) == std::vector<std::string>{"#3"});
    CHECK(names(landlock.scoped) == std::vector<std::string>{"#2"});
    CHECK(names(landlock.path_beneath[0].allowed_access) == std::vector<std::string>{"#5"});
}

TEST_CASE("parse_config tells an absent disableBestEffort from an explicit false", "[spec][landlock]") {
    auto strict = parse_config(with_landlock(R"({"ruleset": {"handledAccessFS": ["read_file"]}})"));
    REQUIRE(strict);
    CHECK_FALSE(strict->process->landlock->disable_best_effort.has_value());
    auto best_effort = parse_config(with_landlock(R"({"disableBestEffort": false})"));
    REQUIRE(best_effort);
    CHECK(best_effort->process->landlock->disable_best_effort == false);
    auto absent = parse_config(with_landlock("null"));
    REQUIRE(absent);
    CHECK_FALSE(absent->process->landlock.has_value());
}

TEST_CASE("parse_config names the Landlock property of a type error", "[spec][landlock]") {
    CHECK(parse_error(R"([])") == "process.landlock: expected an object");
    CHECK(parse_error(R"({"ruleset": []})") == "process.landlock.ruleset: expected an object");
    CHECK(parse_error(R"({"ruleset": {"handledAccessFS": "read_file"}})") ==
          "process.landlock.ruleset.handledAccessFS: expected an array of access right names or a numeric bit mask");
    CHECK(parse_error(R"({"ruleset": {"scoped": ["signal", true]}})") ==
          "process.landlock.ruleset.scoped[1]: expected an access right name or a numeric bit mask");
    CHECK(parse_error(R"({"ruleset": {"handledAccessFS": [-1]}})") ==
          "process.landlock.ruleset.handledAccessFS[0]: expected an access right name or a numeric bit mask");
    CHECK(parse_error(R"({"rules": {"pathBeneath": [{"paths": "/usr"}]}})") ==
          "process.landlock.rules.pathBeneath[0].paths: expected an array");
    CHECK(parse_error(R"({"rules": {"netPort": [{"ports": [80, 65536]}]}})") ==
          "process.landlock.rules.netPort[0].ports[1]: 65536 is out of range for a 16-bit unsigned integer");
    CHECK(parse_error(R"({"disableBestEffort": "yes"})") == "process.landlock.disableBestEffort: expected a boolean");
}
