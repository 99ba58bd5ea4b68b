// husk-integration: drives the real husk binary (HUSK_BINARY) on real bundles as root.
// Environment: HUSK_BINARY, HUSK_PROBE, HUSK_TEST_ROOTFS_SCRIPT (meson test sets all three).
// Catch2's session (and --shard K/N, which meson's integration-K tests pass): tests/catch_session.hpp.
#include <unistd.h>

#include <cstdio>

#include "catch_session.hpp"
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
    return husk::test::run_catch_session(argc, argv);
}
