// VM tests: `husk sandbox --memory/--pids/--cpus` land in memory.max, pids.max and cpu.max and the kernel
// enforces them (the hybrid host refuses them: sandbox_verb_test.cpp). The busybox rootfs, so that the
// test does not depend on what the guest's own /usr holds.
#include <catch2/catch.hpp>

#include <cerrno>
#include <chrono>
#include <thread>

#include "sandbox_support.hpp"
#include "vm_support.hpp"

using namespace husk::test;
using namespace husk::test::vm;

namespace {

// A sandbox in the busybox rootfs.
std::vector<std::string> rootfs_sandbox_args(const std::string& id, const std::string& rootfs,
                                             std::vector<std::string> flags, const std::vector<std::string>& program) {
    flags.insert(flags.begin(), {"--rootfs", rootfs});
    return sandbox_args(id, flags, program);
}

}  // namespace

TEST_CASE("husk sandbox --memory, --pids and --cpus land in memory.max, pids.max and cpu.max", "[.vm][sandbox-vm]") {
    require_vm();
    Sandbox sb;
    Bundle b = sb.bundle();
    const std::string id = sb.id("limits");
    Process husk = sb.spawn_husk(
        rootfs_sandbox_args(id, b.rootfs(), {"--memory", "48MiB", "--pids", "20", "--cpus", "0.5"}, {"/probe", "sleep", "60"}));
    std::string cgroup;
    REQUIRE(wait_until([&] {
        Output state = sb.husk({"state", id});
        if (state.exit_code != 0 || Json::parse(state.out)["status"].str() != "running") return false;
        cgroup = cgroup_dir(sb, id);
        return true;
    }, Ms(30000)));
    CHECK(read_value(cgroup + "/memory.max") == std::to_string(48 * 1024 * 1024));
    CHECK(read_value(cgroup + "/pids.max") == "20");
    CHECK(read_value(cgroup + "/cpu.max") == "50000 100000");
    require_ok(sb.husk({"kill", id, "KILL"}));
    Output out = husk.wait();
    CHECK(out.exit_code == 128 + 9);
    check_nothing_left(sb);
}

TEST_CASE("husk sandbox --pids stops a fork loop, --memory ends a hog with reason oom", "[.vm][sandbox-vm]") {
    require_vm();
    Sandbox sb;
    Bundle b = sb.bundle();
    const std::string forks_verdict = sb.dir() + "/forks.json";
    check_fork_loop_stopped(sb.husk(rootfs_sandbox_args(sb.id("forks"), b.rootfs(),
                                                        {"--pids", "12", "--verdict", forks_verdict}, fork_loop)),
                            forks_verdict);
    const std::string verdict = sb.dir() + "/oom.json";
    check_ended_oom(sb.husk(rootfs_sandbox_args(sb.id("hog"), b.rootfs(), {"--memory", "16m", "--verdict", verdict}, memory_hog)),
                    verdict);
    check_nothing_left(sb);
}
