// The address-space ceiling (run.husk.address-space, --address-space; husk(8), LIMITS): RLIMIT_AS of the
// container's process, only when asked for, recorded in the verdict's limits; a program that runs into it
// ends as it ends (its own code), with no reason husk could not observe; refused beside process.rlimits' own.
#include <sys/resource.h>

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "harness.hpp"
#include "monitor_support.hpp"
#include "sandbox_support.hpp"

using namespace husk::test;
using Catch::Matchers::Contains;

namespace {

// /proc/self/limits' "Max address space" line as the program saw it: "SOFT HARD".
std::string address_space_line(const std::string& limits) {
    for (const std::string& line : lines(limits))
        if (line.rfind("Max address space", 0) == 0) {
            std::string rest = line.substr(std::string("Max address space").size());
            std::vector<std::string> words;
            for (std::size_t at = 0; at < rest.size();) {
                std::size_t start = rest.find_first_not_of(' ', at);
                if (start == std::string::npos) break;
                std::size_t end = rest.find(' ', start);
                words.push_back(rest.substr(start, end == std::string::npos ? std::string::npos : end - start));
                at = end == std::string::npos ? rest.size() : end;
            }
            return words.size() >= 2 ? words[0] + " " + words[1] : "";
        }
    return "";
}

Json sandbox_verdict(Sandbox& sb, const std::string& name, std::vector<std::string> flags,
                     const std::vector<std::string>& program, Output* out) {
    const std::string path = sb.dir() + "/" + name + ".json";
    flags.insert(flags.end(), {"--verdict", path});
    *out = sb.husk(sandbox_args(sb.id(name), flags, program));
    INFO(out->describe());
    Json verdict = Json::parse(read_file(path));
    CHECK(verdict["status"].num() == out->exit_code);
    return verdict;
}

}  // namespace

TEST_CASE("husk sandbox --address-space sets RLIMIT_AS of the program and the verdict's limits say so",
          "[integration][sandbox][address-space]") {
    Sandbox sb;
    Output run;
    Json v = sandbox_verdict(sb, "limits", {"--address-space", "64m"}, {"cat", "/proc/self/limits"}, &run);
    REQUIRE(run.exit_code == 0);
    CHECK(address_space_line(run.out) == "67108864 67108864");
    CHECK(v["limits"]["addressSpaceBytes"].num() == 64 << 20);

    // Never implicit: without the flag the program has husk's own RLIMIT_AS (this test's), no ceiling of husk's.
    ::rlimit own{};
    REQUIRE(::getrlimit(RLIMIT_AS, &own) == 0);
    Json plain = sandbox_verdict(sb, "plain", {}, {"cat", "/proc/self/limits"}, &run);
    REQUIRE(run.exit_code == 0);
    if (own.rlim_cur == RLIM_INFINITY) CHECK(address_space_line(run.out) == "unlimited unlimited");
    CHECK_FALSE(plain["limits"].contains("addressSpaceBytes"));
    check_nothing_left(sb);
}

TEST_CASE("a program that runs into --address-space ends as it ends: its own code, no guessed reason",
          "[integration][sandbox][address-space]") {
    Sandbox sb;
    // dd allocates its 256 MiB block first: refused under a 64 MiB ceiling (ENOMEM), it says so and exits 1.
    const std::vector<std::string> dd = {"dd", "if=/dev/zero", "of=/dev/null", "bs=256M", "count=1"};
    Output run;
    Json limited = sandbox_verdict(sb, "dd", {"--address-space", "64m"}, dd, &run);
    CHECK(run.exit_code == 1);
    CHECK_THAT(run.err, Contains("memory exhausted"));
    CHECK(limited["exit"]["reason"].str() == "exited");
    CHECK(limited["exit"]["detail"].str() == "exit code 1");
    CHECK_FALSE(limited.contains("factors"));  // the kernel counted nothing husk could read
    CHECK(limited["limits"]["addressSpaceBytes"].num() == 64 << 20);
    // The same without the ceiling runs through: the ceiling, not the program, made the difference.
    Json free_run = sandbox_verdict(sb, "dd-free", {}, dd, &run);
    CHECK(run.exit_code == 0);
    CHECK(free_run["exit"]["reason"].str() == "exited");
    check_nothing_left(sb);
}

TEST_CASE("run.husk.address-space sets RLIMIT_AS for husk run; beside process.rlimits' RLIMIT_AS it is refused",
          "[integration][address-space]") {
    Sandbox sb;
    Bundle b = with_args(sb, {"/bin/cat", "/proc/self/limits"});
    b.config["annotations"] = Json::object({{"run.husk.address-space", "128m"}});
    Output run = sb.run(b, sb.id("annotation"));
    INFO(run.describe());
    REQUIRE(run.exit_code == 0);
    CHECK(address_space_line(run.out) == "134217728 134217728");

    // The flag wins over the annotation, as every setting's does.
    Output flag = sb.run(b, sb.id("flag"), {"--address-space", "96m"});
    INFO(flag.describe());
    REQUIRE(flag.exit_code == 0);
    CHECK(address_space_line(flag.out) == "100663296 100663296");

    b.config["process"]["rlimits"] = Json::array(
        {Json::object({{"type", "RLIMIT_AS"}, {"soft", 1 << 30}, {"hard", 1 << 30}})});
    Output both = sb.run(b, sb.id("both"));
    INFO(both.describe());
    CHECK(both.exit_code == 2);
    CHECK_THAT(both.err, Contains("RLIMIT_AS is also set by run.husk.address-space (--address-space)"));

    b.config["process"].erase("rlimits");
    b.config["annotations"] = Json::object({{"run.husk.address-space", "0"}});
    Output zero = sb.run(b, sb.id("zero"));
    INFO(zero.describe());
    CHECK(zero.exit_code == 2);
    CHECK_THAT(zero.err, Contains("run.husk.address-space"));
    check_nothing_left(sb);
}
