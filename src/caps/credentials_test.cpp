#include "caps/credentials.hpp"

#include <fcntl.h>
#include <linux/capability.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstring>
#include <string>

#include "base/run_in_child.hpp"

namespace {

using husk::Error;
using husk::Result;
using husk::run_in_child;
namespace spec = husk::spec;

// What a forked child saw after applying credentials; trivially copyable so it crosses a pipe.
struct ChildReport {
    bool ok = false;
    Error error;
    std::uint64_t bounding = 0, effective = 0, permitted = 0, inheritable = 0, ambient = 0;
    uid_t uid = 0, euid = 0;
    gid_t gid = 0, egid = 0;
    int group_count = 0;
    gid_t groups[8] = {};
    mode_t umask = 0;
};

void observe(ChildReport& report) {
    __user_cap_header_struct header = {_LINUX_CAPABILITY_VERSION_3, 0};
    __user_cap_data_struct data[2] = {};
    syscall(SYS_capget, &header, data);
    report.effective = data[0].effective | (std::uint64_t{data[1].effective} << 32);
    report.permitted = data[0].permitted | (std::uint64_t{data[1].permitted} << 32);
    report.inheritable = data[0].inheritable | (std::uint64_t{data[1].inheritable} << 32);
    for (int cap = 0; cap < 64; ++cap) {
        if (prctl(PR_CAPBSET_READ, cap, 0, 0, 0) == 1) report.bounding |= std::uint64_t{1} << cap;
        if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, cap, 0, 0) == 1) report.ambient |= std::uint64_t{1} << cap;
    }
    report.uid = getuid();
    report.euid = geteuid();
    report.gid = getgid();
    report.egid = getegid();
    report.group_count = getgroups(8, report.groups);
    report.umask = umask(0);
}

// Applies the whole plan in the order docs/security.md gives, then looks at the result.
ChildReport apply_all(const husk::caps::CredentialsPlan& plan) {
    ChildReport report;
    Result<void> r = husk::caps::apply_bounding(plan);
    if (r) r = husk::caps::apply_ids(plan);
    if (r) r = husk::caps::apply_capabilities(plan);
    husk::caps::apply_umask(plan);
    report.ok = r.has_value();
    if (!r) report.error = r.error();
    observe(report);
    return report;
}

// apply_capabilities alone, in a child.
ChildReport capabilities_in_child(const husk::caps::CredentialsPlan& plan) {
    return run_in_child<ChildReport>([&] {
        ChildReport report;
        auto applied = husk::caps::apply_capabilities(plan);
        report.ok = applied.has_value();
        if (!applied) report.error = applied.error();
        return report;
    });
}

std::uint64_t bit(int cap) { return std::uint64_t{1} << cap; }

std::uint64_t own_permitted() {
    __user_cap_header_struct header = {_LINUX_CAPABILITY_VERSION_3, 0};
    __user_cap_data_struct data[2] = {};
    syscall(SYS_capget, &header, data);
    return data[0].permitted | (std::uint64_t{data[1].permitted} << 32);
}

}  // namespace

TEST_CASE("prepare_credentials names the entry holding an unknown capability", "[caps]") {
    spec::Process process;
    process.capabilities.bounding = {{"CAP_CHOWN", "CAP_KILL", "CAP_SETUID", "CAP_FOO"}};
    auto plan = husk::caps::prepare_credentials(process);
    REQUIRE_FALSE(plan);
    CHECK(plan.error().message() == "process.capabilities.bounding[3]: unknown capability \"CAP_FOO\"");
}

TEST_CASE("prepare_credentials accepts only the CAP_ spelling of a capability", "[caps]") {
    spec::Process process;
    process.capabilities.effective = {{"cap_chown"}};
    auto plan = husk::caps::prepare_credentials(process);
    REQUIRE_FALSE(plan);
    CHECK(plan.error().message() == "process.capabilities.effective[0]: unknown capability \"cap_chown\"");
}

TEST_CASE("prepare_credentials resolves names to bits and treats absent sets as empty", "[caps]") {
    spec::Process process;
    process.capabilities.bounding = {{"CAP_CHOWN", "CAP_KILL", "CAP_NET_BIND_SERVICE"}};
    process.capabilities.permitted = {{"CAP_KILL", "CAP_CHOWN"}};
    process.capabilities.effective = {{"CAP_KILL"}};
    process.user = {1000, 1001, std::nullopt, {5, 6}};
    auto plan = husk::caps::prepare_credentials(process);
    REQUIRE(plan);
    CHECK(plan->sets.bounding == (bit(CAP_CHOWN) | bit(CAP_KILL) | bit(CAP_NET_BIND_SERVICE)));
    CHECK(plan->sets.permitted == (bit(CAP_CHOWN) | bit(CAP_KILL)));
    CHECK(plan->sets.effective == bit(CAP_KILL));
    CHECK(plan->sets.inheritable == 0);
    CHECK(plan->sets.ambient == 0);
    CHECK(plan->uid == 1000);
    CHECK(plan->gid == 1001);
    CHECK(plan->additional_gids == std::vector<gid_t>{5, 6});
    CHECK(plan->umask == 022);
    CHECK(plan->names.at(CAP_NET_BIND_SERVICE) == "CAP_NET_BIND_SERVICE");

    spec::Process bare;
    auto empty = husk::caps::prepare_credentials(bare);
    REQUIRE(empty);
    CHECK(empty->sets.bounding == 0);
    CHECK(empty->sets.effective == 0);
}

TEST_CASE("for root, ambient capabilities outside the inheritable set are dropped, as they cannot matter", "[caps]") {
    spec::Process process;  // runc's default spec: ambient listed, no inheritable set
    process.capabilities.bounding = {{"CAP_KILL"}};
    process.capabilities.permitted = {{"CAP_KILL"}};
    process.capabilities.effective = {{"CAP_KILL"}};
    process.capabilities.ambient = {{"CAP_KILL"}};
    auto plan = husk::caps::prepare_credentials(process);
    REQUIRE(plan);
    CHECK(plan->sets.ambient == 0);
}

TEST_CASE("prepare_credentials refuses sets capset would refuse, naming the entry", "[caps]") {
    spec::Process process;
    process.capabilities.bounding = {{"CAP_CHOWN", "CAP_KILL"}};
    process.capabilities.permitted = {{"CAP_CHOWN"}};
    process.capabilities.effective = {{"CAP_CHOWN", "CAP_KILL"}};
    auto plan = husk::caps::prepare_credentials(process);
    REQUIRE_FALSE(plan);
    CHECK(plan.error().message() == "process.capabilities.effective[1]: \"CAP_KILL\" is not in the permitted set");

    process.capabilities.effective = {{"CAP_CHOWN"}};
    process.capabilities.inheritable = {{"CAP_SETUID"}};
    plan = husk::caps::prepare_credentials(process);
    REQUIRE_FALSE(plan);
    CHECK(plan.error().message() == "process.capabilities.inheritable[0]: \"CAP_SETUID\" is not in the bounding set");
}

TEST_CASE("a user's ambient capabilities the kernel could not raise are left out and named, as runc warns", "[caps]") {
    spec::Process process;  // runc's default spec (husk spec) with a user: ambient listed, no inheritable set
    process.capabilities.bounding = {{"CAP_AUDIT_WRITE", "CAP_KILL"}};
    process.capabilities.permitted = {{"CAP_AUDIT_WRITE", "CAP_KILL"}};
    process.capabilities.effective = {{"CAP_AUDIT_WRITE", "CAP_KILL"}};
    process.capabilities.inheritable = {{"CAP_KILL"}};
    process.capabilities.ambient = {{"CAP_AUDIT_WRITE", "CAP_KILL"}};
    process.user.uid = 65534;
    auto plan = husk::caps::prepare_credentials(process);
    REQUIRE(plan);
    CHECK(plan->sets.ambient == (std::uint64_t{1} << CAP_KILL));
    CHECK(plan->ambient_dropped == std::vector<std::string>{"CAP_AUDIT_WRITE"});
    process.user.uid = 0;  // root: nothing to say, the ambient set does not matter to it
    CHECK(husk::caps::prepare_credentials(process).value().ambient_dropped.empty());
}

TEST_CASE("prepare_credentials refuses a umask that is not a file mode", "[caps]") {
    spec::Process process;
    process.user.umask = 01000;
    auto plan = husk::caps::prepare_credentials(process);
    REQUIRE_FALSE(plan);
    CHECK(plan.error().message() == "process.user.umask: 512 is not a file mode (0 to 0777)");
}

TEST_CASE("applied credentials give a non-root user exactly the listed sets, ids, groups and umask", "[caps]") {
    spec::Process process;
    const std::vector<std::string> caps = {"CAP_NET_BIND_SERVICE", "CAP_KILL"};
    process.capabilities.bounding = caps;
    process.capabilities.permitted = caps;
    process.capabilities.effective = caps;
    process.capabilities.inheritable = {{"CAP_NET_BIND_SERVICE"}};
    process.capabilities.ambient = {{"CAP_NET_BIND_SERVICE"}};
    process.user = {65534, 65533, 027, {5, 6}};
    auto plan = husk::caps::prepare_credentials(process);
    REQUIRE(plan);

    ChildReport report = run_in_child<ChildReport>([&] { return apply_all(*plan); });
    INFO(report.error.message());
    REQUIRE(report.ok);
    const std::uint64_t both = bit(CAP_NET_BIND_SERVICE) | bit(CAP_KILL);
    CHECK(report.bounding == both);
    CHECK(report.permitted == both);
    CHECK(report.effective == both);
    CHECK(report.inheritable == bit(CAP_NET_BIND_SERVICE));
    CHECK(report.ambient == bit(CAP_NET_BIND_SERVICE));
    CHECK(report.uid == 65534);
    CHECK(report.euid == 65534);
    CHECK(report.gid == 65533);
    CHECK(report.egid == 65533);
    REQUIRE(report.group_count == 2);
    CHECK(report.groups[0] == 5);
    CHECK(report.groups[1] == 6);
    CHECK(report.umask == 027);
}

TEST_CASE("applied credentials without a capabilities object leave root with no capability", "[caps]") {
    spec::Process process;
    auto plan = husk::caps::prepare_credentials(process);
    REQUIRE(plan);
    ChildReport report = run_in_child<ChildReport>([&] { return apply_all(*plan); });
    INFO(report.error.message());
    REQUIRE(report.ok);
    CHECK(report.bounding == 0);
    CHECK(report.effective == 0);
    CHECK(report.permitted == 0);
    CHECK(report.uid == 0);
    CHECK(report.group_count == 0);
    CHECK(report.umask == 022);
}

TEST_CASE("apply_capabilities names a capability husk itself does not hold", "[caps]") {
    std::uint64_t own = own_permitted();
    int missing = -1;
    for (int cap = 0; cap <= CAP_LAST_CAP; ++cap)
        if (!(own & bit(cap))) missing = cap;
    if (missing < 0) {
        WARN("husk holds every capability here; the missing-capability path is not exercised");
        return;
    }
    auto names = husk::caps::prepare_credentials(spec::Process{});
    REQUIRE(names);
    const std::string name = names->names.at(static_cast<std::size_t>(missing));
    spec::Process process;
    process.capabilities.bounding = {{name}};
    process.capabilities.permitted = {{name}};
    auto plan = husk::caps::prepare_credentials(process);
    REQUIRE(plan);
    ChildReport report = capabilities_in_child(*plan);
    REQUIRE_FALSE(report.ok);
    CHECK(report.error.message() == "capset: " + name + " is not in husk's own permitted set: operation not permitted");

    if (prctl(PR_CAPBSET_READ, missing, 0, 0, 0) != 0) return;
    process.capabilities.permitted.reset();
    process.capabilities.inheritable = {{name}};
    plan = husk::caps::prepare_credentials(process);
    REQUIRE(plan);
    report = capabilities_in_child(*plan);
    REQUIRE_FALSE(report.ok);
    CHECK(report.error.message() ==
          "capset: inheritable " + name + " is not in the bounding set: operation not permitted");
}

TEST_CASE("apply_ids explains additionalGids in a user namespace where setgroups is denied", "[caps]") {
    auto in_user_namespace = [](std::vector<gid_t> groups) {
        spec::Process process;
        process.user.additional_gids = groups;
        auto plan = husk::caps::prepare_credentials(process);
        REQUIRE(plan);
        return run_in_child<ChildReport>([&] {
            ChildReport r;
            // The unprivileged pattern: map only our own ids, which requires setgroups "deny".
            if (unshare(CLONE_NEWUSER) != 0) {
                r.error = Error::sys(errno, "unshare CLONE_NEWUSER");
                return r;
            }
            for (auto [file, text] :
                 {std::pair{"/proc/self/setgroups", "deny"}, std::pair{"/proc/self/uid_map", "0 0 1"},
                  std::pair{"/proc/self/gid_map", "0 0 1"}}) {
                int fd = open(file, O_WRONLY | O_CLOEXEC);
                if (fd < 0 || write(fd, text, std::strlen(text)) < 0) {
                    r.error = Error::sys(errno, "write", file);
                    return r;
                }
                close(fd);
            }
            auto applied = husk::caps::apply_ids(*plan);
            r.ok = applied.has_value();
            if (!applied) r.error = applied.error();
            return r;
        });
    };
    ChildReport with_groups = in_user_namespace({0});
    REQUIRE_FALSE(with_groups.ok);
    CHECK(with_groups.error.err == EPERM);
    CHECK_THAT(with_groups.error.message(), Catch::Contains("/proc/self/setgroups is \"deny\""));

    ChildReport without_groups = in_user_namespace({});
    INFO(without_groups.error.message());
    CHECK(without_groups.ok);
}
