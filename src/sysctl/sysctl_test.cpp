#include "sysctl/sysctl.hpp"

#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstring>
#include <map>
#include <string>

#include "base/fs.hpp"
#include "base/run_in_child.hpp"
#include "husk/unique_fd.hpp"

namespace {

struct ChildReport {
    bool setup_ok = false;
    bool ok = false;
    husk::Error error;
    char read_back[16] = {};
};

enum class ProcMount { fresh_proc, fake_tmpfs };

// In a forked child with its own network and mount namespaces, /proc remounted (a fresh procfs, or a
// tmpfs imitating /proc/sys), apply the plan and read `read_back_path` back.
ChildReport apply_in_child(const husk::sysctl::SysctlPlan& plan, ProcMount proc, const char* read_back_path) {
    return husk::run_in_child<ChildReport>([&] {
        ChildReport report;
        report.setup_ok =
            unshare(CLONE_NEWNET | CLONE_NEWNS) == 0 && mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) == 0;
        if (report.setup_ok && proc == ProcMount::fresh_proc)
            report.setup_ok = mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr) == 0;
        if (report.setup_ok && proc == ProcMount::fake_tmpfs) {
            report.setup_ok = mount("tmpfs", "/proc", "tmpfs", 0, nullptr) == 0 && mkdir("/proc/sys", 0755) == 0 &&
                              mkdir("/proc/sys/net", 0755) == 0 && mkdir("/proc/sys/net/ipv4", 0755) == 0;
            int fd = open("/proc/sys/net/ipv4/ip_forward", O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
            report.setup_ok = report.setup_ok && fd >= 0;
            if (fd >= 0) close(fd);
        }
        if (report.setup_ok) {
            auto applied = husk::sysctl::apply_sysctl(plan);
            report.ok = applied.has_value();
            if (!applied) report.error = applied.error();
            int fd = open(read_back_path, O_RDONLY | O_CLOEXEC);
            if (fd >= 0) {
                ssize_t n = read(fd, report.read_back, sizeof report.read_back - 1);
                (void)n;
                close(fd);
            }
        }
        return report;
    });
}

}  // namespace

TEST_CASE("prepare_sysctl maps keys of either spelling to paths below /proc/sys", "[sysctl]") {
    auto plan = husk::sysctl::prepare_sysctl({{"net.ipv4.ip_forward", "1"}, {"kernel.shmmax", "4096"},
                                              {"net/ipv4/conf/eth0.100/forwarding", "0"}}, {});
    REQUIRE(plan);
    REQUIRE(plan->entries.size() == 3);
    CHECK(plan->entries[0].key == "kernel.shmmax");
    CHECK(plan->entries[0].path == "kernel/shmmax");
    CHECK(plan->entries[1].path == "net/ipv4/ip_forward");  // the map's order: '.' sorts before '/'
    CHECK(plan->entries[1].value == "1");
    CHECK(plan->entries[2].path == "net/ipv4/conf/eth0.100/forwarding");
}

TEST_CASE("prepare_sysctl refuses keys that are not plain sysctl names", "[sysctl]") {
    for (const char* key : {"net/../kernel/x", "net..ipv4", ".net.ipv4", "net.ipv4.", "", "net.../etc"}) {
        auto plan = husk::sysctl::prepare_sysctl({{key, "1"}}, {});
        INFO(key);
        REQUIRE_FALSE(plan);
        CHECK_THAT(plan.error().message(), Catch::StartsWith("linux.sysctl[\"" + std::string(key) + "\"]: "));
    }
    auto plan = husk::sysctl::prepare_sysctl({{"net..ipv4", "1"}}, {});
    CHECK(plan.error().message() == "linux.sysctl[\"net..ipv4\"]: empty component in sysctl name");
}

TEST_CASE("prepare_sysctl refuses a sysctl that no namespace isolates, even if validation let it through",
          "[sysctl]") {
    auto plan = husk::sysctl::prepare_sysctl({{"kernel.core_pattern", "core"}}, {});
    REQUIRE_FALSE(plan);
    CHECK(plan.error().message() ==
          "linux.sysctl[\"kernel.core_pattern\"]: refused: not a namespaced sysctl, writing it would change the host");
}

namespace {

struct JoinReport {
    bool setup_ok = false;
    bool own_refused = false, fresh_accepted = false, other_kind_accepted = false;
    char own_error[300] = {};
};

}  // namespace

TEST_CASE("prepare_sysctl refuses a namespace joined by path that is husk's own, accepts another one",
          "[sysctl]") {
    // In a child: an fd of its own network namespace, and of a fresh one it unshares and leaves again, so
    // husk's "own" is the original and the fresh one is like a pod's network namespace joined by path.
    JoinReport report = husk::run_in_child<JoinReport>([] {
        JoinReport r;
        husk::UniqueFd own(open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC));
        r.setup_ok = own && unshare(CLONE_NEWNET) == 0;
        husk::UniqueFd fresh(open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC));
        r.setup_ok = r.setup_ok && fresh && setns(own.get(), CLONE_NEWNET) == 0;
        if (!r.setup_ok) return r;
        const std::map<std::string, std::string> net = {{"net.ipv4.ip_forward", "1"}};
        auto refused = husk::sysctl::prepare_sysctl(net, {.network = own.get()});
        r.own_refused = !refused.has_value();
        if (!r.own_refused) return r;
        std::string message = refused.error().message();
        message.copy(r.own_error, sizeof r.own_error - 1);
        r.fresh_accepted = husk::sysctl::prepare_sysctl(net, {.network = fresh.get()}).has_value();
        // The joined network namespace says nothing about ipc: a new ipc namespace is the container's own.
        r.other_kind_accepted =
            husk::sysctl::prepare_sysctl({{"kernel.shmmax", "4096"}}, {.network = own.get()}).has_value();
        return r;
    });
    REQUIRE(report.setup_ok);
    CHECK(report.own_refused);
    CHECK(std::string(report.own_error) ==
          "linux.sysctl[\"net.ipv4.ip_forward\"]: refused: linux.namespaces joins the network namespace of husk "
          "itself, so writing it would change the host");
    CHECK(report.fresh_accepted);
    CHECK(report.other_kind_accepted);
}

TEST_CASE("apply_sysctl writes a network sysctl in the container's namespace only", "[sysctl]") {
    const std::string host_before = husk::read_file("/proc/sys/net/ipv4/ip_forward").value();
    // The opposite of the host's value, so a leak to the host would show.
    const std::string wanted = host_before.starts_with("1") ? "0" : "1";
    auto plan = husk::sysctl::prepare_sysctl({{"net.ipv4.ip_forward", wanted}}, {});
    REQUIRE(plan);
    ChildReport report = apply_in_child(*plan, ProcMount::fresh_proc, "/proc/sys/net/ipv4/ip_forward");
    REQUIRE(report.setup_ok);
    INFO(report.error.message());
    CHECK(report.ok);
    CHECK(std::string(report.read_back) == wanted + "\n");
    CHECK(husk::read_file("/proc/sys/net/ipv4/ip_forward").value() == host_before);
}

TEST_CASE("apply_sysctl names the key the kernel does not have", "[sysctl]") {
    auto plan = husk::sysctl::prepare_sysctl({{"net.ipv4.no_such_sysctl", "1"}}, {});
    REQUIRE(plan);
    ChildReport report = apply_in_child(*plan, ProcMount::fresh_proc, "/dev/null");
    REQUIRE(report.setup_ok);
    REQUIRE_FALSE(report.ok);
    CHECK(report.error.message() == "open sysctl \"net.ipv4.no_such_sysctl\": no such file or directory");
}

TEST_CASE("apply_sysctl refuses a /proc/sys that is not procfs", "[sysctl]") {
    auto plan = husk::sysctl::prepare_sysctl({{"net.ipv4.ip_forward", "1"}}, {});
    REQUIRE(plan);
    ChildReport report = apply_in_child(*plan, ProcMount::fake_tmpfs, "/proc/sys/net/ipv4/ip_forward");
    REQUIRE(report.setup_ok);
    REQUIRE_FALSE(report.ok);
    CHECK_THAT(report.error.message(), Catch::StartsWith("/proc/sys is not procfs"));
    CHECK(std::string(report.read_back).empty());
}
