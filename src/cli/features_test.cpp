#include "cli/features.hpp"

#include <catch2/catch.hpp>

#include "mnt/mount_options.hpp"

TEST_CASE("every mount option the features document lists is one husk parses", "[cli]") {
    for (const auto& option : husk::cli::feature_mount_options()) {
        INFO(option);
        auto parsed = husk::mnt::parse_mount_options({option});
        REQUIRE(parsed);
        CHECK(parsed->data.empty());  // a known word, not passed through as filesystem data
    }
}
