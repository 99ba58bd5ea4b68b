// seccomp and Landlock through the whole path (config.json → husk → the container's init), observed from
// inside the container, and the verified posture in `husk state` (docs/security.md, "The verified posture"). The
// modules' own tests (src/seccomp, src/landlock) cover every action, operator, right and scope against the kernel.
#include <catch2/catch.hpp>

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <string>

#include "harness.hpp"
#include "monitor_support.hpp"
#include "seccomp_agent.hpp"

using namespace husk::test;
using Catch::Matchers::Contains;

namespace {

Json deny_mknod(const std::string& action, int errno_ret = -1) {
    Json rule = Json::object({{"names", Json::strings({"mknod", "mknodat"})}, {"action", action}});
    if (errno_ret >= 0) rule["errnoRet"] = errno_ret;
    return Json::object({{"defaultAction", "SCMP_ACT_ALLOW"}, {"syscalls", Json::array({rule})}});
}

const std::vector<std::string> mknod_probe = {"/probe", "mknod", "/tmp/node", "c", "1", "3"};

// Whether the kernel has AppArmor on (apparmor(7)); off, or not built in, on the development host.
bool apparmor_on() {
    std::ifstream enabled("/sys/module/apparmor/parameters/enabled");
    std::string value;
    return std::getline(enabled, value) && value.starts_with("Y");
}

}  // namespace

// Docker sends "apparmorProfile": "docker-default" wherever AppArmor is on. A profile husk cannot put the
// process under must fail create, never run it unconfined: off, the host cannot apply any; on, the kernel
// has no profile of that name loaded. "unconfined" asks for no confinement and runs either way.
TEST_CASE("an AppArmor profile the host cannot apply fails create, naming the field; unconfined runs",
          "[integration][apparmor]") {
    Sandbox sb;
    Bundle b = with_args(sb, {"/probe", "report"});
    b.config["process"]["apparmorProfile"] = "husk-test-no-such-profile";
    Output refused = sb.run(b, sb.id("profile"));
    INFO(refused.describe());
    CHECK(refused.exit_code != 0);
    CHECK_THAT(refused.err, Contains("process.apparmorProfile \"husk-test-no-such-profile\""));
    if (apparmor_on())
        CHECK_THAT(refused.err,
                   Contains("apparmor: process.apparmorProfile \"husk-test-no-such-profile\": no such file"));
    else
        CHECK_THAT(refused.err, Contains("AppArmor is not enabled on this host"));
    b.config["process"]["apparmorProfile"] = "unconfined";
    Output unconfined = sb.run(b, sb.id("unconfined"));
    INFO(unconfined.describe());
    CHECK(unconfined.exit_code == 0);
    check_nothing_left(sb);
}

TEST_CASE("a seccomp errno rule fails the call inside the container with that errno, and state shows the filter",
          "[integration][seccomp]") {
    Sandbox sb;
    Bundle b = with_args(sb, mknod_probe);
    b.config["linux"]["seccomp"] = deny_mknod("SCMP_ACT_ERRNO", EIO);
    std::string id = sb.id("errno");
    Output run = sb.run(b, id, {"--keep"});
    INFO(run.describe());
    REQUIRE(run.exit_code == 0);
    CHECK(last_json_line(run.out)["errno"].num() == EIO);
    Json st = wait_for_exit(sb, id);
    const Json& security = st["husk"]["security"];
    INFO(st.dump());
    CHECK(security["seccomp"].str() == "filter");
    CHECK(security["seccompFilters"].num() == 1);
    CHECK(security["noNewPrivileges"].boolean());
    CHECK_FALSE(security.contains("landlockAbi"));
    delete_and_check(sb, id);
}

TEST_CASE("a seccomp kill rule kills the process with SIGSYS", "[integration][seccomp]") {
    Sandbox sb;
    Bundle b = with_args(sb, mknod_probe);
    b.config["linux"]["seccomp"] = deny_mknod("SCMP_ACT_KILL_PROCESS");
    std::string id = sb.id("kill");
    Output run = sb.run(b, id, {"--keep"});
    INFO(run.describe());
    CHECK(run.exit_code == 128 + SIGSYS);
    Json st = wait_for_exit(sb, id);
    CHECK(st["husk"]["exit"]["reason"].str() == "signaled");
    CHECK(st["husk"]["exit"]["signal"].num() == SIGSYS);
    delete_and_check(sb, id);
}

TEST_CASE("without noNewPrivileges the filter is loaded before the capabilities are dropped",
          "[integration][seccomp]") {
    Sandbox sb;
    Bundle b = with_args(sb, mknod_probe);
    b.config["process"]["noNewPrivileges"] = false;
    b.config["linux"]["seccomp"] = deny_mknod("SCMP_ACT_ERRNO", EIO);
    std::string id = sb.id("nonnp");
    Output run = sb.run(b, id, {"--keep"});
    INFO(run.describe());
    REQUIRE(run.exit_code == 0);
    CHECK(last_json_line(run.out)["errno"].num() == EIO);
    Json st = wait_for_exit(sb, id);
    CHECK(st["husk"]["security"]["seccomp"].str() == "filter");
    CHECK_FALSE(st["husk"]["security"]["noNewPrivileges"].boolean());
    delete_and_check(sb, id);
}

TEST_CASE("SCMP_ACT_NOTIFY hands the listener fd and the state to listenerPath, and the agent answers",
          "[integration][seccomp]") {
    Sandbox sb;
    Agent agent(sb.dir() + "/agent.sock");
    Bundle b = with_args(sb, mknod_probe);
    Json seccomp = deny_mknod("SCMP_ACT_NOTIFY");
    seccomp["listenerPath"] = sb.dir() + "/agent.sock";
    seccomp["listenerMetadata"] = "test-metadata";
    b.config["linux"]["seccomp"] = seccomp;
    std::string id = sb.id("notify");
    Output run = sb.run(b, id);
    INFO(run.describe());
    REQUIRE(run.exit_code == 0);
    CHECK(last_json_line(run.out)["errno"].num() == EDOM);
    CHECK(agent.answered() >= 1);
    Json state = Json::parse(agent.state());
    INFO(agent.state());
    CHECK(state["ociVersion"].str() == "1.3.0");
    CHECK(state["fds"].strs() == std::vector<std::string>{"seccompFd"});
    CHECK(state["metadata"].str() == "test-metadata");
    CHECK(state["pid"].num() > 0);
    CHECK(state["state"]["id"].str() == id);
    check_nothing_left(sb);
}

TEST_CASE("a syscall name libseccomp does not know is an error unless the annotation lets an allow rule skip it",
          "[integration][seccomp]") {
    Sandbox sb;
    Bundle b = with_args(sb, {"/bin/true"});
    Json seccomp = deny_mknod("SCMP_ACT_ERRNO", EIO);
    seccomp["syscalls"].push_back(Json::object({{"names", Json::strings({"husk_no_such_syscall"})},
                                                {"action", "SCMP_ACT_ERRNO"}}));
    b.config["linux"]["seccomp"] = seccomp;
    std::string id = sb.id("unknown");
    Output out = sb.run(b, id);
    INFO(out.describe());
    CHECK(out.exit_code == 2);  // refused before anything existed
    CHECK_THAT(out.err, Contains("husk_no_such_syscall"));
    check_nothing_left(sb);

    // A rule that could only allow (here: it repeats the default) may skip it; state names what was skipped.
    Bundle allow = sb.bundle("allow");
    allow.config["process"]["args"] = Json::strings(mknod_probe);
    allow.config["annotations"] = Json::object({{"run.husk.seccomp-unknown-syscalls", "skip-allowed"}});
    Json skipping = deny_mknod("SCMP_ACT_ERRNO", EIO);
    skipping["syscalls"].push_back(Json::object({{"names", Json::strings({"husk_no_such_syscall"})},
                                                 {"action", "SCMP_ACT_ALLOW"}}));
    allow.config["linux"]["seccomp"] = skipping;
    std::string id2 = sb.id("skipped");
    Output run = sb.run(allow, id2, {"--keep"});
    INFO(run.describe());
    REQUIRE(run.exit_code == 0);
    CHECK(last_json_line(run.out)["errno"].num() == EIO);
    Json st = wait_for_exit(sb, id2);
    CHECK(st["husk"]["security"]["seccompSkippedSyscalls"].strs() == std::vector<std::string>{"husk_no_such_syscall"});
    delete_and_check(sb, id2);
}
