#include "spec/annotations.hpp"

#include <catch2/catch.hpp>
#include <csignal>

using namespace std::chrono_literals;
using husk::spec::parse_duration;
using husk::spec::parse_husk_annotations;

TEST_CASE("durations take a number and a unit, decimals included", "[spec]") {
    CHECK(parse_duration("30s").value() == 30s);
    CHECK(parse_duration("500ms").value() == 500ms);
    CHECK(parse_duration("2m").value() == 2min);
    CHECK(parse_duration("1h").value() == 1h);
    CHECK(parse_duration("250us").value() == 250us);
    CHECK(parse_duration("1.5s").value() == 1500ms);
    CHECK(parse_duration("0.001s").value() == 1ms);
    CHECK(parse_duration("0").value() == 0us);
    CHECK(parse_duration("0s").value() == 0us);
}

TEST_CASE("malformed durations are errors quoting the input", "[spec]") {
    for (const char* bad : {"", "10", "s", "-1s", "1.s", ".5s", "1 s", "1sec", "1e3ms", "1.5.2s", "12x"}) {
        INFO(bad);
        auto parsed = parse_duration(bad);
        REQUIRE_FALSE(parsed);
        CHECK(parsed.error().message().find(std::string("\"") + bad + "\"") != std::string::npos);
    }
    CHECK_FALSE(parse_duration("99999999999999999h"));
}

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
    CHECK_FALSE(none->timeout);
    CHECK_FALSE(none->oom_group);
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
    CHECK(message("run.husk.tenant", "a").starts_with("annotations[\"run.husk.tenant\"]: unknown husk annotation"));
}

TEST_CASE("one annotation's error is the reason alone, and the whole map's names the annotation", "[spec]") {
    husk::spec::HuskAnnotations out;
    auto one = husk::spec::parse_husk_annotation("run.husk.timeout", "0", out);
    REQUIRE_FALSE(one);
    CHECK(one.error().message() == "must be greater than 0");
    auto all = parse_husk_annotations({{"run.husk.timeout", "0"}});
    REQUIRE_FALSE(all);
    CHECK(all.error().message() == "annotations[\"run.husk.timeout\"]: must be greater than 0");
    REQUIRE(husk::spec::parse_husk_annotation("run.husk.output-limit", "64KiB", out));
    CHECK(out.output_limit == 65536u);
}

TEST_CASE("run.husk.init is true or false, and off unless set", "[spec]") {
    CHECK_FALSE(parse_husk_annotations({}).value().init);
    CHECK(parse_husk_annotations({{"run.husk.init", "true"}}).value().init);
    CHECK_FALSE(parse_husk_annotations({{"run.husk.init", "false"}}).value().init);
    auto bad = parse_husk_annotations({{"run.husk.init", "1"}});
    REQUIRE_FALSE(bad);
    CHECK(bad.error().message() == "annotations[\"run.husk.init\"]: want \"true\" or \"false\", not \"1\"");
}

TEST_CASE("run.husk.root is bind or tmpfs, and bind unless set", "[spec]") {
    CHECK_FALSE(parse_husk_annotations({}).value().root_tmpfs);
    CHECK(parse_husk_annotations({{"run.husk.root", "tmpfs"}}).value().root_tmpfs);
    CHECK_FALSE(parse_husk_annotations({{"run.husk.root", "bind"}}).value().root_tmpfs);
    auto bad = parse_husk_annotations({{"run.husk.root", "ramfs"}});
    REQUIRE_FALSE(bad);
    CHECK(bad.error().message() == "annotations[\"run.husk.root\"]: want \"bind\" or \"tmpfs\", not \"ramfs\"");
}
