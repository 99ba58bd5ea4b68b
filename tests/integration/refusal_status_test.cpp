// One exit status for every refusal (husk(8), EXIT STATUS): `husk run` and `husk sandbox` exit 2 whenever the
// verdict's reason is `refused` or `tenant-quota`, whichever check refused the run (the command line, the id,
// the config, a limit the host cannot enforce, an id taken, the tenant), with or without a verdict wanted.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <chrono>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "harness.hpp"
#include "monitor_support.hpp"

using namespace husk::test;
using Catch::Matchers::Contains;

namespace {

struct Refusal {
    std::string name;
    std::string reason;  // of the verdict
    std::function<std::vector<std::string>(Sandbox&, const std::string& verdict_flag_value)> command;
};

std::vector<std::string> with_verdict(std::vector<std::string> args, const std::string& verdict) {
    if (verdict.empty()) return args;
    // Before the program (sandbox) or the id (run): the last word is either.
    args.insert(args.end() - 1, {"--verdict", verdict});
    return args;
}

}  // namespace

TEST_CASE("every refusal of run and sandbox exits 2, with the verdict saying the same", "[integration][refusal]") {
    Sandbox sb;
    require_ok(sb.husk({"tenant", "set", "spent", "--runs", "0"}));
    Bundle b = with_args(sb, {"/bin/true"});
    b.write();
    const std::string taken = sb.id("taken");
    Process holder = sb.spawn_husk({"sandbox", "--id", taken, "--", "sleep", "60"});
    for (auto deadline = std::chrono::steady_clock::now() + Ms(20000);
         sb.husk({"state", taken}).exit_code != 0 && std::chrono::steady_clock::now() < deadline;)
        std::this_thread::sleep_for(Ms(20));
    sb.wait_for_status(taken, "running", Ms(20000));

    std::vector<Refusal> refusals = {
        {"an unknown flag", "refused", [](Sandbox&, const std::string& v) {
             return with_verdict({"sandbox", "--no-such-flag", "true"}, v); }},
        {"a bad value", "refused", [](Sandbox&, const std::string& v) {
             return with_verdict({"sandbox", "--timeout", "0", "true"}, v); }},
        {"an invalid id", "refused", [](Sandbox&, const std::string& v) {
             return with_verdict({"sandbox", "--id", "../x", "true"}, v); }},
        {"an id taken", "refused", [&](Sandbox&, const std::string& v) {
             return with_verdict({"sandbox", "--id", taken, "true"}, v); }},
        {"an unknown tenant", "refused", [](Sandbox&, const std::string& v) {
             return with_verdict({"sandbox", "--tenant", "nobody", "true"}, v); }},
        {"a spent tenant", "tenant-quota", [](Sandbox&, const std::string& v) {
             return with_verdict({"sandbox", "--tenant", "spent", "true"}, v); }},
        {"run: a bundle that is not there", "refused", [](Sandbox& s, const std::string& v) {
             return with_verdict({"run", "--bundle", s.dir() + "/no-such-bundle", s.id("nobundle")}, v); }},
        {"run: a spent tenant", "tenant-quota", [&](Sandbox& s, const std::string& v) {
             return with_verdict({"run", "--bundle", b.dir, "--tenant", "spent", s.id("spent")}, v); }},
    };
    // The memory controller missing (a hybrid host) is refused like the rest; a VM with it runs the program.
    if (cgroup2_mount() == "/sys/fs/cgroup/unified")
        refusals.push_back({"--memory on a hybrid host", "refused", [](Sandbox&, const std::string& v) {
                                return with_verdict({"sandbox", "--memory", "64m", "true"}, v); }});

    for (const Refusal& refusal : refusals) {
        INFO(refusal.name);
        // Without a verdict: the status alone.
        Output bare = sb.husk(refusal.command(sb, ""));
        INFO(bare.describe());
        CHECK(bare.exit_code == 2);
        CHECK_FALSE(bare.err.empty());
        // With one: the same status, in the verdict too.
        const std::string path = sb.dir() + "/refused.json";
        Output run = sb.husk(refusal.command(sb, path));
        INFO(run.describe());
        CHECK(run.exit_code == 2);
        Json v = Json::parse(read_file(path));
        INFO(v.dump());
        CHECK(v["exit"]["reason"].str() == refusal.reason);
        CHECK(v["status"].num() == 2);
        ::unlink(path.c_str());
    }
    CHECK(sb.state(taken)["status"].str() == "running");
    require_ok(sb.husk({"kill", taken, "KILL"}));
    holder.wait();
    check_nothing_left(sb);
}

TEST_CASE("a run that husk accepted and that then failed to start exits 1, not 2", "[integration][refusal]") {
    Sandbox sb;
    const std::string path = sb.dir() + "/verdict.json";
    Output run = sb.husk({"sandbox", "--verdict", path, "--", "/no/such/program"});
    INFO(run.describe());
    Json v = Json::parse(read_file(path));
    CHECK(v["exit"]["reason"].str() == "setup-failed");
    CHECK(run.exit_code != 2);
    CHECK(v["status"].num() == run.exit_code);
    check_nothing_left(sb);
}
