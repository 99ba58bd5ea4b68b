// husk-integration: drives the real husk binary (HUSK_BINARY) on real bundles as root.
// Environment: HUSK_BINARY, HUSK_PROBE, HUSK_TEST_ROOTFS_SCRIPT (meson test sets all three).
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstdio>

#include "harness.hpp"

int main(int argc, char** argv) {
    if (geteuid() != 0) {
        std::fprintf(stderr, "husk-integration: needs root (containers, cgroups, mounts); skipping\n");
        return 77;  // meson's "skipped"
    }
    if (std::string error = husk::test::load_paths_from_env(); !error.empty()) {
        std::fprintf(stderr, "husk-integration: %s\n", error.c_str());
        return 1;
    }
    return Catch::Session().run(argc, argv);
}
