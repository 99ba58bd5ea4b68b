// process.landlock through the whole path, observed from inside the container, and what `husk state`
// records (docs/landlock.md). src/landlock's own tests cover each right, port rule and scope.
#include <catch2/catch.hpp>

#include <cerrno>

#include "harness.hpp"
#include "monitor_support.hpp"

using namespace husk::test;
using Catch::Matchers::Contains;

namespace {

// Writes are handled: allowed beneath /tmp only.
Json write_only_in_tmp() {
    return Json::parse(R"({
      "ruleset": {"handledAccessFS": ["write_file", "make_reg", "remove_file", "execute"]},
      "rules": {"pathBeneath": [
        {"allowedAccess": ["write_file", "make_reg", "remove_file"], "paths": ["/tmp"]},
        {"allowedAccess": ["execute"], "paths": ["/bin", "/probe"]}
      ]}
    })");
}

}  // namespace

TEST_CASE("Landlock denies writes outside the allowed tree and allows them inside, and state records the ABI",
          "[integration][landlock]") {
    Sandbox sb;
    Bundle b = with_args(sb, {"/bin/sh", "-c", "/probe write /tmp/inside; /probe write /outside; /probe read /etc/passwd"});
    b.config["process"]["landlock"] = write_only_in_tmp();
    std::string id = sb.id("write");
    Output run = sb.run(b, id, {"--keep"});
    INFO(run.describe());
    REQUIRE(run.exit_code == 0);
    std::vector<std::string> reports = lines(run.out);
    REQUIRE(reports.size() == 3);
    CHECK(Json::parse(reports[0])["errno"].num() == 0);
    CHECK(Json::parse(reports[1])["errno"].num() == EACCES);
    CHECK(Json::parse(reports[2])["errno"].num() == 0);  // reading is not handled: allowed
    Json st = wait_for_exit(sb, id);
    INFO(st.dump());
    CHECK(st["husk"]["security"]["landlockAbi"].num() >= 1);
    CHECK_FALSE(st["husk"]["security"].contains("landlockDropped"));
    delete_and_check(sb, id);
}

TEST_CASE("Landlock denies executing what no rule grants", "[integration][landlock]") {
    Sandbox sb;
    // /bin is granted, /probe is not.
    Bundle b = with_args(sb, {"/bin/sh", "-c", "/probe exit 0; echo probe=$?; /bin/true; echo true=$?"});
    Json landlock = write_only_in_tmp();
    landlock["rules"]["pathBeneath"].at(1)["paths"] = Json::strings({"/bin"});
    b.config["process"]["landlock"] = landlock;
    Output run = sb.run(b, sb.id("exec"));
    INFO(run.describe());
    CHECK(run.exit_code == 0);
    CHECK(lines(run.out) == std::vector<std::string>{"probe=126", "true=0"});
    check_nothing_left(sb);
}

TEST_CASE("a Landlock rule on a path missing in the container fails create, naming it", "[integration][landlock]") {
    Sandbox sb;
    Bundle b = with_args(sb, {"/bin/true"});
    Json landlock = write_only_in_tmp();
    landlock["rules"]["pathBeneath"].at(0)["paths"] = Json::strings({"/tmp", "/no/such/dir"});
    b.config["process"]["landlock"] = landlock;
    std::string id = sb.id("missing");
    Output out = sb.run(b, id);
    INFO(out.describe());
    CHECK(out.exit_code == 1);
    CHECK_THAT(out.err, Contains("process.landlock.rules.pathBeneath[0].paths[1]"));
    CHECK_THAT(out.err, Contains("\"/no/such/dir\""));
    check_nothing_left(sb);
}

TEST_CASE("a right the kernel's Landlock ABI cannot enforce is an error, unless best effort drops and records it",
          "[integration][landlock]") {
    Sandbox sb;
    Bundle b = with_args(sb, {"/probe", "write", "/outside"});
    Json landlock = write_only_in_tmp();
    // Bit 20 of handledAccessFS is beyond every ABI this kernel knows (ABI 7 ends at bit 15).
    landlock["ruleset"]["handledAccessFS"].push_back(1 << 20);
    b.config["process"]["landlock"] = landlock;
    std::string id = sb.id("strict");
    Output out = sb.run(b, id);
    INFO(out.describe());
    CHECK(out.exit_code == 2);  // refused before anything existed
    CHECK_THAT(out.err, Contains("cannot enforce"));
    check_nothing_left(sb);

    landlock["disableBestEffort"] = false;
    b.config["process"]["landlock"] = landlock;
    std::string id2 = sb.id("besteffort");
    Output run = sb.run(b, id2, {"--keep"});
    INFO(run.describe());
    REQUIRE(run.exit_code == 0);
    CHECK(last_json_line(run.out)["errno"].num() == EACCES);  // the rest is still enforced
    Json st = wait_for_exit(sb, id2);
    INFO(st.dump());
    std::vector<std::string> dropped = st["husk"]["security"]["landlockDropped"].strs();
    REQUIRE(dropped.size() == 1);
    CHECK_THAT(dropped[0], Contains("20"));
    delete_and_check(sb, id2);
}

TEST_CASE("Landlock and seccomp apply together without noNewPrivileges", "[integration][landlock][seccomp]") {
    Sandbox sb;
    Bundle b = with_args(sb, {"/probe", "write", "/outside"});
    b.config["process"]["noNewPrivileges"] = false;
    b.config["process"]["landlock"] = write_only_in_tmp();
    b.config["linux"]["seccomp"] = Json::parse(
        R"({"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [{"names": ["mknodat"], "action": "SCMP_ACT_ERRNO"}]})");
    std::string id = sb.id("both");
    Output run = sb.run(b, id, {"--keep"});
    INFO(run.describe());
    REQUIRE(run.exit_code == 0);
    CHECK(last_json_line(run.out)["errno"].num() == EACCES);
    Json st = wait_for_exit(sb, id);
    const Json& security = st["husk"]["security"];
    CHECK(security["seccomp"].str() == "filter");
    CHECK(security["landlockAbi"].num() >= 1);
    CHECK_FALSE(security["noNewPrivileges"].boolean());
    delete_and_check(sb, id);
}
