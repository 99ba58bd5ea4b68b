#include "spec/config_writer.hpp"

#include <catch2/catch.hpp>

#include "spec/parse.hpp"
#include "spec/test_configs.hpp"

namespace {

// The text in, the text out.
husk::Result<std::string> config_with_annotations(std::string_view text, const std::map<std::string, std::string>& annotations) {
    return husk::spec::config_with_annotations(TRY(husk::parse_json_tree(text)), annotations);
}

}  // namespace

TEST_CASE("the effective config replaces the annotations and keeps every other member as written", "[spec]") {
    auto text = config_with_annotations(
        R"({"ociVersion":"1.3.0","root":{"path":"rootfs"},"annotations":{"run.husk.timeout":"1s","a":"b"},)"
        R"("process":{"args":["/x"],"cwd":"/","rlimits":[{"type":"RLIMIT_NOFILE","hard":18446744073709551615,)"
        R"("soft":1.0e3}]},"x-unknown":[null,true,false,{"deep":"\u00e9\n"}]})",
        {{"run.husk.timeout", "2s"}});
    REQUIRE(text);
    CHECK(*text ==
          R"({"ociVersion":"1.3.0","root":{"path":"rootfs"},"annotations":{"run.husk.timeout":"2s"},)"
          R"("process":{"args":["/x"],"cwd":"/","rlimits":[{"type":"RLIMIT_NOFILE","hard":18446744073709551615,)"
          R"("soft":1.0e3}]},"x-unknown":[null,true,false,{"deep":"é\n"}]})");
}

TEST_CASE("a config without annotations gets them, and duplicates go where the parser reads", "[spec]") {
    CHECK(config_with_annotations(R"({"ociVersion":"1.3.0"})", {{"k", "v"}}).value() ==
          R"({"ociVersion":"1.3.0","annotations":{"k":"v"}})");
    // The last duplicate is the one read (json_reader.hpp), so the annotations take its place.
    CHECK(config_with_annotations(R"({"annotations":{"a":"1"},"x":1,"annotations":{"a":"2"}})", {{"k", "v"}}).value() ==
          R"({"x":1,"annotations":{"k":"v"}})");
    CHECK_FALSE(config_with_annotations("[1]", {}));
    CHECK_FALSE(config_with_annotations("{", {}));
}

TEST_CASE("what real clients send parses to the same spec after the rewrite", "[spec]") {
    for (const char* config : {husk::spec::test::containerd_config, husk::spec::test::podman_config}) {
        auto before = husk::spec::parse_config(config);
        REQUIRE(before);
        auto text = config_with_annotations(config, before->annotations);
        REQUIRE(text);
        auto after = husk::spec::parse_config(*text);
        REQUIRE(after);
        CHECK(after->annotations == before->annotations);
        CHECK(after->process->args == before->process->args);
        CHECK(after->mounts.size() == before->mounts.size());
        CHECK(after->linux->namespaces.size() == before->linux->namespaces.size());
        CHECK(config_with_annotations(*text, after->annotations).value() == *text);
    }
}
