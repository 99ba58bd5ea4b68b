#include "husk/container_id.hpp"

#include <catch2/catch.hpp>
#include <string>

namespace {

std::string id_error(std::string_view id) {
    auto result = husk::ContainerId::parse(id);
    REQUIRE_FALSE(result);
    return result.error().message();
}

}  // namespace

TEST_CASE("ContainerId accepts what runc accepts", "[base]") {
    for (const char* id : {"c1", "my.container_1+x-y", "...", "a..b", "A", ".hidden"}) {
        auto parsed = husk::ContainerId::parse(id);
        REQUIRE(parsed);
        CHECK(parsed->str() == id);
    }
    CHECK(husk::ContainerId::parse(std::string(1024, 'a')));
}

TEST_CASE("ContainerId rejects empty, dot, leading dash, slash, control and over-long ids", "[base]") {
    CHECK(id_error("") == "invalid container id \"\": must not be empty");
    CHECK(id_error(".") == "invalid container id \".\": must not be \".\" or \"..\"");
    CHECK(id_error("..") == "invalid container id \"..\": must not be \".\" or \"..\"");
    CHECK(id_error("-rf") == "invalid container id \"-rf\": must not start with '-' (it would be read as an option)");
    CHECK(id_error("-") == "invalid container id \"-\": must not start with '-' (it would be read as an option)");
    CHECK(id_error("a/b") == "invalid container id \"a/b\": only letters, digits and _ + - . are allowed");
    CHECK(id_error("../x") == "invalid container id \"../x\": only letters, digits and _ + - . are allowed");
    CHECK(id_error("/") == "invalid container id \"/\": only letters, digits and _ + - . are allowed");
    CHECK(id_error("a,b") == "invalid container id \"a,b\": only letters, digits and _ + - . are allowed");
    CHECK(id_error("a\nb") == "invalid container id \"a\\x0ab\": only letters, digits and _ + - . are allowed");
    CHECK(id_error("a b") == "invalid container id \"a b\": only letters, digits and _ + - . are allowed");
    CHECK(id_error(std::string(1025, 'a')) == "invalid container id: 1025 characters long (at most 1024)");
}
