// VM tests: husk without root in a delegated cgroup (docs/rootless.md). The guest's root makes a cgroup of the
// user's below the v2 root (the directory and its cgroup.procs, cgroup.subtree_control and cgroup.threads
// chowned, as systemd's Delegate=yes does) and starts the user's commands in a leaf of it; husk finds the
// delegation itself, and the memory, pids and cpu limits are enforced without root.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <string>

#include "rootless_support.hpp"
#include "sandbox_support.hpp"
#include "vm_support.hpp"

using namespace husk::test;
using namespace husk::test::vm;

namespace {

// A cgroup below the v2 root delegated to `user`, removed with everything below it at the end.
class Delegation {
public:
    Delegation(Sandbox& sb, const TestUser& user) {
        const std::string mount = cgroup2_mount();
        REQUIRE_FALSE(mount.empty());
        // The controllers the limits need, offered to the delegation by the root.
        write_file(mount + "/cgroup.subtree_control", "+memory +pids +cpu");
        top_ = mount + "/husk-rl-" + sb.dir().substr(sb.dir().size() - 6);
        for (const std::string& dir : {top_, top_ + "/leaf"}) {
            REQUIRE(::mkdir(dir.c_str(), 0755) == 0);
            for (const std::string& file : {std::string(), std::string("/cgroup.procs"),
                                            std::string("/cgroup.subtree_control"), std::string("/cgroup.threads")})
                REQUIRE(::chown((dir + file).c_str(), user.uid(), user.gid()) == 0);
        }
    }
    ~Delegation() {
        // Deepest first: husk's own subtree (the container's cgroups are gone by now), the leaf, the top.
        std::system(("find " + top_ + " -depth -type d -exec rmdir {} + 2>/dev/null").c_str());
    }
    const std::string& top() const { return top_; }
    std::string leaf_procs() const { return top_ + "/leaf/cgroup.procs"; }

private:
    std::string top_;
};

}  // namespace

TEST_CASE("rootless in a delegated cgroup: --pids, --memory and --cpus enforced without root", "[.vm][rootless-vm]") {
    require_vm();
    Sandbox sb;
    TestUser user(sb, TestUser::Subids::none, TestUser::Account::uid_only);
    Delegation delegation(sb, user);
    user.start_in_cgroup(delegation.leaf_procs());
    Bundle b = sb.bundle();

    // pids.max stops the fork loop; memory.max ends a hog, and the verdict says oom.
    check_fork_loop_stopped(user.husk(sandbox_args(sb.id("rl-forks"), {"--rootfs", b.rootfs(), "--pids", "12"}, fork_loop)));
    const std::string verdict = user.home() + "/oom.json";
    check_ended_oom(user.husk(sandbox_args(sb.id("rl-hog"), {"--rootfs", b.rootfs(), "--memory", "16m", "--verdict", verdict},
                                           memory_hog)),
                    verdict);
    CHECK(Json::parse(read_file(verdict)).find("usage") != nullptr);

    // The cgroup is in the delegation, with the limits written.
    const std::string id = sb.id("rl-cpus");
    Process running = user.spawn_husk(sandbox_args(id, {"--rootfs", b.rootfs(), "--cpus", "0.5", "--memory", "48m"},
                                                   {"/probe", "sleep", "60"}));
    std::string cgroup;
    REQUIRE(wait_until([&] {
        Output state = user.husk({"state", id});
        if (state.exit_code != 0) return false;
        Json st = Json::parse(state.out);
        if (st["status"].str() != "running") return false;
        cgroup = cgroup2_mount() + st["husk"]["cgroupPath"].str();
        return true;
    }, Ms(30000)));
    CHECK(cgroup.rfind(delegation.top() + "/husk/", 0) == 0);
    CHECK(read_value(cgroup + "/cpu.max") == "50000 100000");
    CHECK(read_value(cgroup + "/memory.max") == std::to_string(48 * 1024 * 1024));
    REQUIRE(user.husk({"kill", id, "KILL"}).exit_code == 0);
    Output out = running.wait();
    CHECK(out.exit_code == 128 + 9);
    struct stat st {};
    CHECK(::stat(cgroup.c_str(), &st) != 0);  // deleted with the sandbox
}
