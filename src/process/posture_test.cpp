#include "process/posture.hpp"

#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/prctl.h>
#include <unistd.h>

using husk::process::check_posture;
using husk::process::ExpectedPosture;
using husk::process::Posture;

TEST_CASE("read_posture reads this process's own status", "[process]") {
    int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
    REQUIRE(fd >= 0);
    auto posture = husk::process::read_posture(fd, 0);
    close(fd);
    REQUIRE(posture);
    CHECK(posture->seccomp_mode == 0);
    CHECK(posture->no_new_privs == prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0));
    CHECK(posture->cap_bounding != 0);  // the tests run as root
    CHECK(posture->landlock_abi == 0);
}

TEST_CASE("check_posture names every requested property that is not in force", "[process]") {
    Posture in_force{2, 1, 1, 0x20000420, 0x20000420, 7};
    ExpectedPosture expected{true, true, true, 0x20000420, 0x20000420};
    CHECK(check_posture(in_force, expected));

    Posture weak{0, 0, 0, 0x20000421, 0x20000420, 0};
    auto result = check_posture(weak, expected);
    REQUIRE_FALSE(result);
    std::string message = result.error().message();
    CHECK(message.find("linux.seccomp: no seccomp filter in effect") != std::string::npos);
    CHECK(message.find("process.noNewPrivileges") != std::string::npos);
    CHECK(message.find("process.landlock: no Landlock domain in effect") != std::string::npos);
    CHECK(message.find("CapEff is 0x0000000020000421, expected 0x0000000020000420") != std::string::npos);
    CHECK(message.find("bounding") == std::string::npos);

    // Nothing requested: nothing to miss, beyond the capability sets.
    CHECK(check_posture(Posture{0, 0, 0, 0, 0, 0}, ExpectedPosture{}));
}
