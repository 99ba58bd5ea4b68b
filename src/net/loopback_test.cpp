#include "net/loopback.hpp"

#include <linux/capability.h>
#include <net/if.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstring>

#include "base/run_in_child.hpp"

namespace {

struct ChildReport {
    bool unshared = false;
    bool up_before = false;
    bool ok = false;
    husk::Error error;
    bool up_after = false;
};

bool loopback_is_up() {
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    ifreq request = {};
    std::strcpy(request.ifr_name, "lo");
    bool up = fd >= 0 && ioctl(fd, SIOCGIFFLAGS, &request) == 0 && (request.ifr_flags & IFF_UP);
    if (fd >= 0) close(fd);
    return up;
}

enum class Privilege { keep, drop_effective };

// In a forked child: a fresh network namespace, then apply the plan there.
ChildReport up_in_new_netns(const husk::net::LoopbackPlan& plan, Privilege privilege) {
    return husk::run_in_child<ChildReport>([&] {
        ChildReport report;
        report.unshared = unshare(CLONE_NEWNET) == 0;
        report.up_before = loopback_is_up();
        if (privilege == Privilege::drop_effective) {
            __user_cap_header_struct header = {_LINUX_CAPABILITY_VERSION_3, 0};
            __user_cap_data_struct data[2] = {};
            syscall(SYS_capget, &header, data);
            data[0].effective = data[1].effective = 0;
            syscall(SYS_capset, &header, data);
        }
        auto applied = husk::net::apply_loopback_up(plan);
        report.ok = applied.has_value();
        if (!applied) report.error = applied.error();
        report.up_after = loopback_is_up();
        return report;
    });
}

}  // namespace

TEST_CASE("apply_loopback_up brings lo up in a new network namespace", "[net]") {
    auto plan = husk::net::prepare_loopback();
    REQUIRE(plan);
    CHECK(plan->length > sizeof(nlmsghdr));
    ChildReport report = up_in_new_netns(*plan, Privilege::keep);
    REQUIRE(report.unshared);
    CHECK_FALSE(report.up_before);
    INFO(report.error.message());
    CHECK(report.ok);
    CHECK(report.up_after);
}

TEST_CASE("apply_loopback_up reports the kernel's refusal", "[net]") {
    auto plan = husk::net::prepare_loopback();
    REQUIRE(plan);
    ChildReport report = up_in_new_netns(*plan, Privilege::drop_effective);
    REQUIRE(report.unshared);
    REQUIRE_FALSE(report.ok);
    CHECK(report.error.message() == "set link up \"lo\": operation not permitted");
    CHECK_FALSE(report.up_after);
}
