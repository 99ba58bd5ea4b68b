#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "landlock/abi.hpp"
#include "landlock/landlock.hpp"

namespace {

namespace abi = husk::landlock::abi;
using husk::landlock::prepare_landlock;
using Landlock = husk::spec::Landlock;
using Access = Landlock::Access;

Access named(const char* name) { return {name, 0}; }
Access number(std::uint64_t bits) { return {{}, bits}; }

std::string prepare_error(const Landlock& config, int abi_version) {
    auto plan = prepare_landlock(config, abi_version);
    REQUIRE_FALSE(plan);
    return plan.error().message();
}

}  // namespace

TEST_CASE("prepare_landlock maps names to the kernel's bits and keeps rule paths and fields", "[landlock]") {
    Landlock config;
    config.handled_access_fs = {named("execute"), named("read_file"), named("write_file"), named("truncate")};
    config.handled_access_network = {named("connect_tcp")};
    config.scoped = {named("signal")};
    config.path_beneath = {{{named("read_file"), named("execute")}, {"/usr", "/bin"}}};
    config.net_port = {{{named("connect_tcp")}, {443}}};
    auto plan = prepare_landlock(config, 7);
    REQUIRE(plan);
    CHECK(plan->enforce);
    CHECK_FALSE(plan->best_effort);
    CHECK(plan->abi == 7);
    CHECK(plan->handled_fs == (abi::fs_execute | abi::fs_read_file | abi::fs_write_file | abi::fs_truncate));
    CHECK(plan->handled_net == abi::net_connect_tcp);
    CHECK(plan->scoped == abi::scope_signal);
    REQUIRE(plan->path_rules.size() == 2);
    CHECK(plan->path_rules[1].path == "/bin");
    CHECK(plan->path_rules[1].allowed == (abi::fs_read_file | abi::fs_execute));
    CHECK(plan->path_rules[1].field == "process.landlock.rules.pathBeneath[0].paths[1]");
    REQUIRE(plan->port_rules.size() == 1);
    CHECK(plan->port_rules[0].port == 443);
    CHECK(plan->port_rules[0].field == "process.landlock.rules.netPort[0].ports[0]");
    CHECK(plan->dropped.empty());
}

TEST_CASE("prepare_landlock accepts the kernel's numeric masks alongside names", "[landlock]") {
    Landlock config;
    config.handled_access_fs = {number(0x7), named("read_dir")};  // execute | write_file | read_file
    config.handled_access_network = {number(3)};
    config.scoped = {number(1)};
    config.path_beneath = {{{number(abi::fs_read_file | abi::fs_read_dir)}, {"/"}}};
    auto plan = prepare_landlock(config, 7);
    REQUIRE(plan);
    CHECK(plan->handled_fs == 0xf);
    CHECK(plan->handled_net == 3);
    CHECK(plan->scoped == abi::scope_abstract_unix_socket);
    CHECK(plan->path_rules.at(0).allowed == 0xc);
}

TEST_CASE("prepare_landlock by default refuses a bit the kernel's ABI lacks, naming it", "[landlock]") {
    Landlock config;
    config.handled_access_fs = {named("read_file"), number(1ull << 20)};
    CHECK(prepare_error(config, 7) ==
          "process.landlock: the kernel's Landlock ABI 7 cannot enforce: handledAccessFS bit 20 (unknown to husk: "
          "needs an ABI above 7); set \"disableBestEffort\": false to drop them");
    config.disable_best_effort = true;  // the proposal's explicit strict mode says the same
    CHECK(prepare_error(config, 7).find("cannot enforce: handledAccessFS bit 20") != std::string::npos);
}

TEST_CASE("prepare_landlock lists every right an old ABI cannot enforce", "[landlock]") {
    Landlock config;
    config.handled_access_fs = {named("read_file"), named("truncate"), named("ioctl_dev")};
    config.handled_access_network = {named("bind_tcp")};
    config.scoped = {named("abstract_unix_socket"), named("signal")};
    CHECK(prepare_error(config, 3) ==
          "process.landlock: the kernel's Landlock ABI 3 cannot enforce: ioctl_dev (needs ABI 5), bind_tcp (needs "
          "ABI 4), abstract_unix_socket (needs ABI 6), signal (needs ABI 6); set \"disableBestEffort\": false to "
          "drop them");
}

TEST_CASE("prepare_landlock in best effort drops what the ABI lacks and records it", "[landlock]") {
    Landlock config;
    config.disable_best_effort = false;
    config.handled_access_fs = {named("read_file"), named("write_file"), named("truncate"), named("ioctl_dev")};
    config.handled_access_network = {named("bind_tcp")};
    config.scoped = {named("signal")};
    config.path_beneath = {{{named("read_file"), named("ioctl_dev")}, {"/data"}},
                           {{named("ioctl_dev")}, {"/dev"}}};
    config.net_port = {{{named("bind_tcp")}, {80}}};
    auto plan = prepare_landlock(config, 3);
    REQUIRE(plan);
    CHECK(plan->best_effort);
    CHECK(plan->enforce);
    CHECK(plan->dropped == std::vector<std::string>{"ioctl_dev", "bind_tcp", "signal"});
    CHECK(plan->handled_fs == (abi::fs_read_file | abi::fs_write_file | abi::fs_truncate));
    CHECK(plan->handled_net == 0);
    CHECK(plan->scoped == 0);
    // The /dev rule allowed only ioctl_dev: nothing left, so it is skipped; so is the port rule.
    REQUIRE(plan->path_rules.size() == 1);
    CHECK(plan->path_rules[0].allowed == abi::fs_read_file);
    CHECK(plan->port_rules.empty());
}

TEST_CASE("prepare_landlock without kernel Landlock: strict refuses, best effort enforces nothing", "[landlock]") {
    Landlock config;
    config.handled_access_fs = {named("read_file")};
    config.scoped = {named("signal")};
    CHECK(prepare_error(config, 0).starts_with("process.landlock: the kernel has no Landlock"));
    config.disable_best_effort = false;
    auto plan = prepare_landlock(config, 0);
    REQUIRE(plan);
    CHECK_FALSE(plan->enforce);
    CHECK(plan->dropped == std::vector<std::string>{"read_file", "signal"});
}

TEST_CASE("prepare_landlock refuses unknown names, naming the element", "[landlock]") {
    Landlock config;
    config.handled_access_fs = {named("read_file"), named("read_everything")};
    CHECK(prepare_error(config, 7).starts_with("process.landlock.ruleset.handledAccessFS[1]: unknown filesystem "
                                               "access right \"read_everything\" (known: execute, write_file,"));
    config.handled_access_fs = {named("read_file")};
    config.scoped = {named("ptrace")};
    CHECK(prepare_error(config, 7) == "process.landlock.ruleset.scoped[0]: unknown scope \"ptrace\" (known: "
                                      "abstract_unix_socket, signal)");
    config.scoped = {};
    config.handled_access_network = {named("bind_udp")};
    CHECK(prepare_error(config, 7).starts_with("process.landlock.ruleset.handledAccessNetwork[0]: unknown network"));
}

TEST_CASE("prepare_landlock refuses a rule allowing what the ruleset does not handle", "[landlock]") {
    Landlock config;
    config.handled_access_fs = {named("read_file")};
    config.path_beneath = {{{named("read_file")}, {"/a"}}, {{named("read_file"), named("write_file")}, {"/b"}}};
    CHECK(prepare_error(config, 7) == "process.landlock.rules.pathBeneath[1].allowedAccess: allows write_file, which "
                                      "process.landlock.ruleset.handledAccessFS does not handle");
    config.path_beneath = {};
    config.net_port = {{{named("connect_tcp")}, {443}}};
    CHECK(prepare_error(config, 7) == "process.landlock.rules.netPort[0].allowedAccess: allows connect_tcp, which "
                                      "process.landlock.ruleset.handledAccessNetwork does not handle");
}

TEST_CASE("prepare_landlock refuses relative paths, empty rules and an empty ruleset", "[landlock]") {
    Landlock config;
    CHECK(prepare_error(config, 7) == "process.landlock.ruleset: handles no access right and no scope, so Landlock "
                                      "would restrict nothing");
    config.handled_access_fs = {named("read_file")};
    config.path_beneath = {{{named("read_file")}, {"/ok", "data"}}};
    CHECK(prepare_error(config, 7) == "process.landlock.rules.pathBeneath[0].paths[1]: \"data\" is not an absolute "
                                      "path in the container");
    config.path_beneath = {{{}, {"/ok"}}};
    CHECK(prepare_error(config, 7) == "process.landlock.rules.pathBeneath[0].allowedAccess: empty; a rule must "
                                      "allow at least one access right");
}

TEST_CASE("supported_rights follows the ABI", "[landlock]") {
    auto abi3 = husk::landlock::supported_rights(3);
    CHECK(abi3.access_fs.size() == 15);
    CHECK(abi3.access_fs.back() == "truncate");
    CHECK(abi3.access_network.empty());
    CHECK(abi3.scoped.empty());
    auto abi7 = husk::landlock::supported_rights(7);
    CHECK(abi7.access_fs.size() == 16);
    CHECK(abi7.access_network == std::vector<std::string>{"bind_tcp", "connect_tcp"});
    CHECK(abi7.scoped == std::vector<std::string>{"abstract_unix_socket", "signal"});
    CHECK(husk::landlock::supported_rights(0).access_fs.empty());
}

TEST_CASE("probe_abi reports the running kernel's Landlock ABI", "[landlock]") {
    auto version = husk::landlock::probe_abi();
    REQUIRE(version);
    CHECK(*version >= 0);
    if (*version == 0) WARN("this kernel has no Landlock");
}
