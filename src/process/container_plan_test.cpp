#include "process/container_plan.hpp"

#include <catch2/catch.hpp>

#include "spec/parse.hpp"

using namespace husk;

// Run under LeakSanitizer (build-asan, docs/testing.md), this fails at exit when the plan built before the
// refused field is not freed: prepare_container once built its members in one aggregate initializer of TRYs,
// and g++ does not destroy the members already built when a TRY returns from the middle of one.
TEST_CASE("prepare_container frees the mounts it prepared when it then refuses an unknown capability", "[process]") {
    auto spec = spec::parse_config(R"({
      "ociVersion": "1.3.0",
      "root": {"path": "rootfs"},
      "process": {"args": ["/bin/true"], "cwd": "/", "user": {"uid": 0, "gid": 0},
                  "capabilities": {"bounding": ["CAP_KILL", "CAP_FOO"]}},
      "mounts": [{"destination": "/proc", "type": "proc", "source": "proc"},
                 {"destination": "/tmp", "type": "tmpfs", "source": "tmpfs", "options": ["nosuid", "mode=1777"]}],
      "linux": {"namespaces": [{"type": "mount"}, {"type": "pid"}], "maskedPaths": ["/proc/kcore"],
                "readonlyPaths": ["/proc/sys"]}
    })");
    REQUIRE(spec);
    auto plan = process::prepare_container(*spec, process::PlanOptions{"/nonexistent/rootfs", "/nonexistent", false, 0, false});
    REQUIRE_FALSE(plan);
    CHECK(plan.error().message().find("CAP_FOO") != std::string::npos);
}
