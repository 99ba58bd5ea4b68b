#include "rlimit/rlimits.hpp"

#include <linux/capability.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <string>

#include "base/run_in_child.hpp"

namespace {

namespace spec = husk::spec;

bool has_sys_resource() {
    __user_cap_header_struct header = {_LINUX_CAPABILITY_VERSION_3, 0};
    __user_cap_data_struct data[2] = {};
    syscall(SYS_capget, &header, data);
    return data[CAP_TO_INDEX(CAP_SYS_RESOURCE)].effective & CAP_TO_MASK(CAP_SYS_RESOURCE);
}

struct ChildReport {
    bool ok = false;
    husk::Error error;
    rlimit nofile = {};
    rlimit core = {};
};

// Applies the plan in a forked child and reports what getrlimit says there.
ChildReport apply_in_child(const husk::rlimit::RlimitPlan& plan) {
    return husk::run_in_child<ChildReport>([&] {
        ChildReport report;
        auto applied = husk::rlimit::apply_rlimits(plan);
        report.ok = applied.has_value();
        if (!applied) report.error = applied.error();
        getrlimit(RLIMIT_NOFILE, &report.nofile);
        getrlimit(RLIMIT_CORE, &report.core);
        return report;
    });
}

}  // namespace

TEST_CASE("prepare_rlimits names the entry holding an unknown rlimit", "[rlimit]") {
    spec::Process process;
    process.rlimits = {{"RLIMIT_CORE", 0, 0}, {"RLIMIT_FOO", 1, 1}};
    auto plan = husk::rlimit::prepare_rlimits(process);
    REQUIRE_FALSE(plan);
    CHECK(plan.error().message() == "process.rlimits[1].type: unknown rlimit \"RLIMIT_FOO\"");
}

TEST_CASE("prepare_rlimits refuses a duplicated type and a soft limit above the hard one", "[rlimit]") {
    spec::Process process;
    process.rlimits = {{"RLIMIT_CORE", 0, 0}, {"RLIMIT_CORE", 0, 0}};
    auto plan = husk::rlimit::prepare_rlimits(process);
    REQUIRE_FALSE(plan);
    CHECK(plan.error().message() ==
          "process.rlimits[1].type: duplicate rlimit \"RLIMIT_CORE\" (also process.rlimits[0])");

    process.rlimits = {{"RLIMIT_NOFILE", 100, 200}};
    plan = husk::rlimit::prepare_rlimits(process);
    REQUIRE_FALSE(plan);
    CHECK(plan.error().message() == "process.rlimits[0]: soft limit 200 for RLIMIT_NOFILE exceeds its hard limit 100");
}

TEST_CASE("prepare_rlimits refuses raising a hard limit when husk lacks CAP_SYS_RESOURCE", "[rlimit]") {
    rlimit own = {};
    REQUIRE(getrlimit(RLIMIT_NOFILE, &own) == 0);
    if (own.rlim_max == RLIM_INFINITY) {
        WARN("the hard NOFILE limit is unlimited here; nothing to exceed");
        return;
    }
    spec::Process process;
    process.rlimits = {{"RLIMIT_NOFILE", own.rlim_max + 1, own.rlim_max + 1}};
    auto plan = husk::rlimit::prepare_rlimits(process);
    if (has_sys_resource()) {
        // Privileged: allowed, and the child really gets it.
        REQUIRE(plan);
        return;
    }
    // This host: root runs without CAP_SYS_RESOURCE (docs/clients.md, "podman / conmon").
    REQUIRE_FALSE(plan);
    CHECK(plan.error().message() == "process.rlimits[0]: hard limit " + std::to_string(own.rlim_max + 1) +
                                        " for RLIMIT_NOFILE exceeds husk's own hard limit " +
                                        std::to_string(own.rlim_max) + " and raising it needs CAP_SYS_RESOURCE");
}

TEST_CASE("applied rlimits are what the child's getrlimit reports", "[rlimit]") {
    spec::Process process;
    process.rlimits = {{"RLIMIT_NOFILE", 1000, 512}, {"RLIMIT_CORE", 0, 0}};
    auto plan = husk::rlimit::prepare_rlimits(process);
    REQUIRE(plan);
    ChildReport report = apply_in_child(*plan);
    INFO(report.error.message());
    REQUIRE(report.ok);
    CHECK(report.nofile.rlim_cur == 512);
    CHECK(report.nofile.rlim_max == 1000);
    CHECK(report.core.rlim_cur == 0);
    CHECK(report.core.rlim_max == 0);
}

TEST_CASE("apply_rlimits names the resource the kernel refused", "[rlimit]") {
    if (has_sys_resource()) {
        WARN("husk may raise hard limits here; the refusal path is not exercised");
        return;
    }
    rlimit own = {};
    REQUIRE(getrlimit(RLIMIT_NOFILE, &own) == 0);
    // A plan built by hand, past prepare's check: the kernel's EPERM must still name the resource.
    husk::rlimit::RlimitPlan plan;
    plan.entries.push_back({RLIMIT_NOFILE, "RLIMIT_NOFILE", {own.rlim_cur, own.rlim_max + 1}});
    ChildReport report = apply_in_child(plan);
    REQUIRE_FALSE(report.ok);
    CHECK(report.error.message() == "setrlimit \"RLIMIT_NOFILE\": operation not permitted");
}

TEST_CASE("run.husk.address-space becomes RLIMIT_AS, soft and hard, and is refused beside process.rlimits' own",
          "[rlimit]") {
    spec::Process process;
    process.rlimits = {{"RLIMIT_CORE", 0, 0}};
    auto plan = husk::rlimit::prepare_rlimits(process, 64u << 20);
    REQUIRE(plan);
    REQUIRE(plan->entries.size() == 2);
    CHECK(plan->entries[1].resource == RLIMIT_AS);
    CHECK(std::string(plan->entries[1].name) == "RLIMIT_AS");
    CHECK(plan->entries[1].value.rlim_cur == 64u << 20);
    CHECK(plan->entries[1].value.rlim_max == 64u << 20);
    auto seen = husk::run_in_child<rlimit>([&] {
        rlimit as = {};
        if (husk::rlimit::apply_rlimits(*plan)) getrlimit(RLIMIT_AS, &as);
        return as;
    });
    CHECK(seen.rlim_cur == 64u << 20);
    CHECK(seen.rlim_max == 64u << 20);

    // Without it, nothing: no RLIMIT_AS of husk's own.
    plan = husk::rlimit::prepare_rlimits(process);
    REQUIRE(plan);
    CHECK(plan->entries.size() == 1);

    process.rlimits = {{"RLIMIT_AS", 1u << 30, 1u << 30}};
    plan = husk::rlimit::prepare_rlimits(process, 64u << 20);
    REQUIRE_FALSE(plan);
    CHECK(plan.error().message() ==
          "process.rlimits[0]: RLIMIT_AS is also set by run.husk.address-space (--address-space); keep one");
}
