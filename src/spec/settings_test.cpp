#include "spec/settings.hpp"

#include <catch2/catch.hpp>
#include <csignal>
#include <set>

using namespace std::chrono_literals;
using husk::spec::HuskSettings;
using husk::spec::parse_husk_annotations;

namespace {

const husk::spec::Setting& setting(std::string_view name) {
    for (const auto& s : husk::spec::husk_settings())
        if (s.name == name) return s;
    FAIL("no setting " << name);
    throw;
}

// A value of every setting, as an annotation would spell it.
const std::map<std::string, std::string> every_setting = {
    {"run.husk.timeout", "1.5s"},        {"run.husk.kill-grace", "0"},
    {"run.husk.stop-signal", "INT"},     {"run.husk.output-limit", "64KiB"},
    {"run.husk.cpu-limit", "250ms"},     {"run.husk.oom-group", "false"},
    {"run.husk.seccomp-unknown-syscalls", "skip-allowed"},
    {"run.husk.init", "true"},           {"run.husk.root", "tmpfs"},
    {"run.husk.tenant", "team-a"},       {"run.husk.net-allow", "127.0.0.1/32:53, [::1]:80"},
    {"run.husk.net-ops", "7"},           {"run.husk.net-ops-kill", "true"},
    {"run.husk.die-with-parent", "true"}, {"run.husk.address-space", "536870912"}};

}  // namespace

TEST_CASE("husk annotations are read into typed values", "[spec]") {
    auto parsed = parse_husk_annotations({{"run.husk.timeout", "2s"},
                                          {"run.husk.kill-grace", "0"},
                                          {"run.husk.stop-signal", "SIGINT"},
                                          {"run.husk.output-limit", "64KiB"},
                                          {"run.husk.cpu-limit", "1.5s"},
                                          {"run.husk.oom-group", "false"},
                                          {"org.example.other", "anything"}});
    REQUIRE(parsed);
    CHECK(parsed->timeout == 2s);
    CHECK(parsed->kill_grace == 0ms);
    CHECK(parsed->stop_signal == SIGINT);
    CHECK(parsed->output_limit == 65536u);
    CHECK(parsed->cpu_limit == 1500ms);
    CHECK(parsed->oom_group == false);

    auto none = parse_husk_annotations({{"io.kubernetes.cri.sandbox-id", "x"}});
    REQUIRE(none);
    CHECK(*none == HuskSettings{});
}

TEST_CASE("a sub-millisecond timeout rounds up, never down to nothing", "[spec]") {
    CHECK(parse_husk_annotations({{"run.husk.timeout", "10us"}}).value().timeout == 1ms);
}

TEST_CASE("bad husk annotations are errors naming the annotation", "[spec]") {
    auto message = [](const char* key, const char* value) {
        auto parsed = parse_husk_annotations({{key, value}});
        REQUIRE_FALSE(parsed);
        return parsed.error().message();
    };
    CHECK(message("run.husk.timeout", "0") == "annotations[\"run.husk.timeout\"]: must be greater than 0");
    CHECK(message("run.husk.timeout", "-1s").starts_with("annotations[\"run.husk.timeout\"]: invalid duration"));
    CHECK(message("run.husk.cpu-limit", "0ms") == "annotations[\"run.husk.cpu-limit\"]: must be greater than 0");
    CHECK(message("run.husk.output-limit", "0") == "annotations[\"run.husk.output-limit\"]: must be greater than 0");
    CHECK(message("run.husk.output-limit", "lots").starts_with("annotations[\"run.husk.output-limit\"]: size \"lots\": not a number"));
    CHECK(message("run.husk.stop-signal", "SIGFOO") ==
          "annotations[\"run.husk.stop-signal\"]: unknown signal \"SIGFOO\"");
    CHECK(message("run.husk.oom-group", "yes") ==
          "annotations[\"run.husk.oom-group\"]: want \"true\" or \"false\", not \"yes\"");
    CHECK(message("run.husk.tenants", "a").starts_with("annotations[\"run.husk.tenants\"]: unknown husk annotation"));
    CHECK(message("run.husk.tenant", "../a").starts_with("annotations[\"run.husk.tenant\"]: invalid tenant name"));
    CHECK(message("run.husk.init", "1") == "annotations[\"run.husk.init\"]: want \"true\" or \"false\", not \"1\"");
    CHECK(message("run.husk.root", "ramfs") == "annotations[\"run.husk.root\"]: want \"tmpfs\" or \"bind\", not \"ramfs\"");
    CHECK(message("run.husk.die-with-parent", "yes") ==
          "annotations[\"run.husk.die-with-parent\"]: want \"true\" or \"false\", not \"yes\"");
}

TEST_CASE("a flag is read by its annotation's parser, and its error names the flag", "[spec]") {
    HuskSettings flags;
    REQUIRE(husk::spec::parse_setting_flag(setting("output-limit"), "64KiB", flags));
    CHECK(flags.output_limit == 65536u);
    auto zero = husk::spec::parse_setting_flag(setting("timeout"), "0", flags);
    REQUIRE_FALSE(zero);
    CHECK(zero.error().message() == "--timeout: must be greater than 0");
    CHECK_FALSE(flags.timeout);
}

TEST_CASE("switches are off unless set", "[spec]") {
    HuskSettings none = parse_husk_annotations({}).value();
    CHECK_FALSE(none.init.value_or(false));
    CHECK_FALSE(none.root_tmpfs.value_or(false));
    CHECK(parse_husk_annotations({{"run.husk.root", "tmpfs"}}).value().root_tmpfs == true);
    CHECK(parse_husk_annotations({{"run.husk.root", "bind"}}).value().root_tmpfs == false);
}

TEST_CASE("every setting is one annotation and at most one flag, and writes back what it reads", "[spec]") {
    std::set<std::string_view> names;
    for (const auto& s : husk::spec::husk_settings()) {
        INFO(s.name);
        CHECK(names.insert(s.name).second);
        CHECK(every_setting.count(s.annotation()) == 1);  // the test below covers every setting
        CHECK((s.flag == husk::spec::FlagKind::none) == (std::string_view(s.help).empty()));
    }
    CHECK(names.size() == every_setting.size());
    HuskSettings all = parse_husk_annotations(every_setting).value();
    for (const auto& s : husk::spec::husk_settings()) {
        INFO(s.name);
        std::optional<std::string> written = s.render(all);
        REQUIRE(written);
        HuskSettings again;
        REQUIRE(s.parse(*written, again));
        CHECK(s.render(again) == written);
        HuskSettings taken;
        s.take(taken, all);
        CHECK(s.render(taken) == written);
        CHECK_FALSE(s.render(HuskSettings{}));
    }
}

TEST_CASE("the command line's settings win field by field, and the annotations then say what is in force", "[spec]") {
    HuskSettings from_config = parse_husk_annotations({{"run.husk.timeout", "1.5s"}, {"run.husk.kill-grace", "2s"}}).value();
    HuskSettings flags;
    flags.kill_grace = 0ms;
    flags.net_allow = husk::spec::parse_net_allow("10.0.0.0/8:443").value();
    HuskSettings effective = husk::spec::with_overrides(from_config, flags);
    CHECK(effective.timeout == 1500ms);
    CHECK(effective.kill_grace == 0ms);
    CHECK(effective.net_allow == flags.net_allow);

    auto annotations = husk::spec::annotations_of({{"run.husk.timeout", "1.5s"}, {"run.husk.kill-grace", "2s"},
                                                   {"org.example", "kept"}},
                                                  effective);
    // What says the same stays as written; what a flag changed or added is written in husk's syntax.
    CHECK(annotations == std::map<std::string, std::string>{{"org.example", "kept"},
                                                            {"run.husk.timeout", "1.5s"},
                                                            {"run.husk.kill-grace", "0"},
                                                            {"run.husk.net-allow", "10.0.0.0/8:443"}});
    CHECK(parse_husk_annotations(annotations).value() == effective);

    HuskSettings all = parse_husk_annotations(every_setting).value();
    CHECK(parse_husk_annotations(husk::spec::annotations_of({}, all)).value() == all);
    CHECK(husk::spec::annotations_of(every_setting, HuskSettings{}).empty());
}

TEST_CASE("--net-ops-kill needs a budget however either was spelled", "[spec]") {
    HuskSettings kill;
    kill.net_ops_kill = true;
    auto refused = husk::spec::check_settings(kill);
    REQUIRE_FALSE(refused);
    CHECK_THAT(refused.error().message(), Catch::Contains("needs a budget to stop at"));
    kill.net_ops = 3;
    CHECK(husk::spec::check_settings(kill));
}
