#include "process/container_plan.hpp"

#include <catch2/catch.hpp>
#include <string>

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

TEST_CASE("prepare_container asks for the hooks round trip only when a setup hook is configured", "[process]") {
    const std::string base = R"({
      "ociVersion": "1.3.0",
      "root": {"path": "/"},
      "process": {"args": ["/bin/true"], "cwd": "/", "user": {"uid": 0, "gid": 0}},
      "linux": {"namespaces": [{"type": "mount"}]})";
    auto without = spec::parse_config(base + "}");
    REQUIRE(without);
    auto plain = process::prepare_container(*without, process::PlanOptions{"/", "/", false, 0, false});
    REQUIRE(plain);
    CHECK_FALSE(plain->setup_hooks);
    for (const char* kind : {"prestart", "createRuntime", "createContainer", "startContainer"}) {
        auto with = spec::parse_config(base + R"(, "hooks": {")" + kind + R"(": [{"path": "/bin/true"}]}})");
        REQUIRE(with);
        auto plan = process::prepare_container(*with, process::PlanOptions{"/", "/", false, 0, false});
        REQUIRE(plan);
        CHECK(plan->setup_hooks);
    }
    // poststart and poststop run in the parent after create: no round trip for them.
    auto after = spec::parse_config(base + R"(, "hooks": {"poststart": [{"path": "/bin/true"}], "poststop": [{"path": "/bin/true"}]}})");
    REQUIRE(after);
    auto late = process::prepare_container(*after, process::PlanOptions{"/", "/", false, 0, false});
    REQUIRE(late);
    CHECK_FALSE(late->setup_hooks);
}
