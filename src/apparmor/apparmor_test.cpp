#include "apparmor/apparmor.hpp"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>
#include <string>

namespace {

using husk::apparmor::prepare_apparmor;

// A file standing in for /sys/module/apparmor/parameters/enabled, removed at the end of the scope.
struct EnabledFile {
    std::string path;
    explicit EnabledFile(const char* value) {
        char name[] = "/tmp/husk-apparmor-enabled.XXXXXX";
        const int fd = ::mkstemp(name);
        REQUIRE(fd >= 0);
        ::close(fd);
        path = name;
        std::ofstream(path) << value;
    }
    ~EnabledFile() { ::unlink(path.c_str()); }
};

}  // namespace

TEST_CASE("prepare_apparmor writes exec PROFILE where AppArmor is enabled", "[apparmor]") {
    EnabledFile on("Y\n");
    auto plan = prepare_apparmor("docker-default", on.path.c_str());
    REQUIRE(plan);
    CHECK(plan->profile == "docker-default");
    CHECK(plan->command == "exec docker-default");
    auto none = prepare_apparmor("", on.path.c_str());
    REQUIRE(none);
    CHECK(none->command.empty());
}

TEST_CASE("prepare_apparmor refuses a profile where AppArmor is off, naming the field", "[apparmor]") {
    EnabledFile off("N\n");
    for (const char* file : {off.path.c_str(), "/nonexistent/apparmor/enabled"}) {
        auto plan = prepare_apparmor("docker-default", file);
        REQUIRE_FALSE(plan);
        CHECK_THAT(plan.error().message(), Catch::Matchers::StartsWith("process.apparmorProfile \"docker-default\": "
                                                                        "AppArmor is not enabled on this host"));
        // Asking for no confinement there asks for nothing.
        auto unconfined = prepare_apparmor("unconfined", file);
        REQUIRE(unconfined);
        CHECK(unconfined->command.empty());
    }
}

// The kernel's parameter file is on sysfs, whose files all say they are 4096 bytes long: another sysfs file
// (a number, not Y) must be read and found not Y, not refused as too large.
TEST_CASE("prepare_apparmor reads a sysfs file as the kernel's parameter", "[apparmor]") {
    auto plan = prepare_apparmor("docker-default", "/sys/kernel/uevent_seqnum");
    REQUIRE_FALSE(plan);
    CHECK_THAT(plan.error().message(), Catch::Matchers::Contains("AppArmor is not enabled on this host"));
}

TEST_CASE("prepare_apparmor refuses a profile name with a control character", "[apparmor]") {
    EnabledFile on("Y\n");
    auto plan = prepare_apparmor("docker-default\nexec unconfined", on.path.c_str());
    REQUIRE_FALSE(plan);
    CHECK_THAT(plan.error().message(), Catch::Matchers::Contains("control character"));
}
