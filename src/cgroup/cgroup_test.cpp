#include "cgroup/cgroup.hpp"

#include <fcntl.h>
#include <sched.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <csignal>
#include <thread>

#include "base/fs.hpp"
#include "cgroup/hierarchy.hpp"
#include "cgroup/test_cgroup.hpp"

using namespace husk::cgroup;
using namespace std::chrono_literals;

namespace {

bool exists(const std::string& path) { return ::access(path.c_str(), F_OK) == 0; }

// A process that forks once and then both wait for signals: two members for kill_all to find.
int parent_and_grandchild() {
    if (::fork() < 0) return 1;
    for (;;) ::pause();
}

// Polls until the cgroup has no process left, or two seconds passed.
bool becomes_empty(const CgroupLocation& cgroup) {
    for (int i = 0; i < 200; ++i) {
        auto procs = read_procs(cgroup);
        if (procs && procs->empty()) return true;
        std::this_thread::sleep_for(10ms);
    }
    return false;
}

std::size_t procs_count(const CgroupLocation& cgroup) {
    for (int i = 0; i < 200; ++i) {  // the grandchild appears a moment after the child starts
        auto procs = read_procs(cgroup);
        if (procs && procs->size() >= 2) return procs->size();
        std::this_thread::sleep_for(10ms);
    }
    return 0;
}

}  // namespace

TEST_CASE("create_cgroup makes the nested path and remove_cgroup(Cgroup) leaves nothing behind", "[cgroup]") {
    testing::ScratchCgroups scratch;
    auto cgroup = create_cgroup(scratch.plan("a/b/c"));
    REQUIRE(cgroup);
    CHECK(cgroup->location().path == scratch.path("a/b/c"));
    CHECK(exists(scratch.host_path("a/b/c/cgroup.procs")));
    CHECK(cgroup->created().size() == 4);  // the scratch root, a, a/b, a/b/c
    REQUIRE(remove_cgroup(*cgroup));
    CHECK_FALSE(exists(scratch.mount() + scratch.root()));
}

TEST_CASE("remove_cgroup removes the leaf and its child cgroups but not ancestors outside /husk", "[cgroup]") {
    testing::ScratchCgroups scratch;
    auto cgroup = create_cgroup(scratch.plan("a/b"));
    REQUIRE(cgroup);
    REQUIRE(::mkdir(scratch.host_path("a/b/inner").c_str(), 0755) == 0);  // as a container with cgroupns might
    REQUIRE(remove_cgroup({scratch.mount(), scratch.path("a/b")}));
    CHECK_FALSE(exists(scratch.host_path("a/b")));
    CHECK(exists(scratch.host_path("a")));
    CHECK(remove_cgroup({scratch.mount(), scratch.path("a/b")}));  // already gone: fine
}

TEST_CASE("remove_cgroup removes empty ancestors below /husk but keeps /husk", "[cgroup]") {
    auto mount = find_v2_mount().value();
    std::string tenant = "/husk/husk-test-" + std::to_string(::getpid());
    bool husk_existed = exists(mount + "/husk");
    CgroupPlan plan;
    plan.manager = Manager::cgroupfs;
    plan.location.mount = mount;
    plan.location.path = tenant + "/c1";
    auto cgroup = create_cgroup(plan);
    REQUIRE(cgroup);
    CHECK(remove_cgroup(plan.location));
    CHECK_FALSE(exists(mount + tenant));
    CHECK(exists(mount + "/husk"));
    if (!husk_existed) ::rmdir((mount + "/husk").c_str());
}

TEST_CASE("create_cgroup reuses an empty existing leaf and refuses one with processes", "[cgroup]") {
    testing::ScratchCgroups scratch;
    auto first = create_cgroup(scratch.plan("leaf"));
    REQUIRE(first);
    auto again = create_cgroup(scratch.plan("leaf"));
    REQUIRE(again);
    CHECK(again->created().empty());

    auto child = testing::spawn_in_cgroup(first->dir_fd(), [] {
        ::pause();
        return 0;
    });
    auto busy = create_cgroup(scratch.plan("leaf"));
    REQUIRE_FALSE(busy);
    CHECK(busy.error().message() ==
          "cgroup \"" + scratch.host_path("leaf") + "\" already has processes; husk will not share it");
    CHECK(exists(scratch.host_path("leaf")));  // not ours to remove
}

TEST_CASE("a failed create_cgroup removes every directory it made", "[cgroup]") {
    testing::ScratchCgroups scratch;
    CgroupPlan plan = scratch.plan("x/y");
    plan.has_device_rules = true;
    plan.device_program = {bpf_insn{BPF_JMP | BPF_JA, 0, 0, 0, 0}};  // falls off the end: the verifier says no
    auto cgroup = create_cgroup(plan);
    REQUIRE_FALSE(cgroup);
    CHECK(cgroup.error().message().starts_with("load device program"));
    CHECK_FALSE(exists(scratch.mount() + scratch.root()));
}

TEST_CASE("kill_all with SIGKILL empties the cgroup and remove_cgroup waits out exiting processes", "[cgroup]") {
    testing::ScratchCgroups scratch;
    auto cgroup = create_cgroup(scratch.plan("kill"));
    REQUIRE(cgroup);
    auto child = testing::spawn_in_cgroup(cgroup->dir_fd(), parent_and_grandchild);
    REQUIRE(procs_count(cgroup->location()) == 2);
    REQUIRE(kill_all(cgroup->location(), SIGKILL));
    int status = child.wait();
    CHECK(WIFSIGNALED(status));
    CHECK(WTERMSIG(status) == SIGKILL);
    CHECK(becomes_empty(cgroup->location()));
    CHECK(remove_cgroup(cgroup->location()));
    CHECK_FALSE(exists(scratch.host_path("kill")));
}

TEST_CASE("kill_all with another signal reaches every process and leaves the cgroup thawed", "[cgroup]") {
    testing::ScratchCgroups scratch;
    auto cgroup = create_cgroup(scratch.plan("term"));
    REQUIRE(cgroup);
    auto child = testing::spawn_in_cgroup(cgroup->dir_fd(), parent_and_grandchild);
    REQUIRE(procs_count(cgroup->location()) == 2);
    REQUIRE(kill_all(cgroup->location(), SIGTERM));
    CHECK_FALSE(is_frozen(cgroup->location()).value());
    int status = child.wait();
    CHECK(WIFSIGNALED(status));
    CHECK(WTERMSIG(status) == SIGTERM);
    CHECK(becomes_empty(cgroup->location()));
}

TEST_CASE("kill_all keeps a frozen cgroup frozen; a handled signal runs on thaw", "[cgroup]") {
    testing::ScratchCgroups scratch;
    auto cgroup = create_cgroup(scratch.plan("paused"));
    REQUIRE(cgroup);
    // A fatal signal would kill even frozen processes (cgroup v2 lets them through); a handled one waits.
    auto child = testing::spawn_in_cgroup(cgroup->dir_fd(), [] {
        ::signal(SIGUSR1, [](int) { ::_exit(42); });
        return parent_and_grandchild();
    });
    REQUIRE(procs_count(cgroup->location()) == 2);
    REQUIRE(set_frozen(cgroup->location(), true));
    REQUIRE(kill_all(cgroup->location(), SIGUSR1));
    CHECK(is_frozen(cgroup->location()).value());
    std::this_thread::sleep_for(50ms);
    CHECK(read_procs(cgroup->location()).value().size() == 2);
    REQUIRE(set_frozen(cgroup->location(), false));
    int status = child.wait();
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 42);
    CHECK(becomes_empty(cgroup->location()));
}

TEST_CASE("set_frozen freezes and thaws a running child and cgroup.events agrees", "[cgroup]") {
    testing::ScratchCgroups scratch;
    auto cgroup = create_cgroup(scratch.plan("freeze"));
    REQUIRE(cgroup);
    auto child = testing::spawn_in_cgroup(cgroup->dir_fd(), [] {
        for (;;) ::sched_yield();  // busy, so the freezer has something running to stop
        return 0;
    });
    CHECK_FALSE(is_frozen(cgroup->location()).value());
    REQUIRE(set_frozen(cgroup->location(), true));
    CHECK(is_frozen(cgroup->location()).value());
    std::string events = husk::read_file(scratch.host_path("freeze/cgroup.events")).value();
    CHECK(flat_keyed_value(events, "frozen") == 1);
    REQUIRE(set_frozen(cgroup->location(), false));
    CHECK_FALSE(is_frozen(cgroup->location()).value());
    events = husk::read_file(scratch.host_path("freeze/cgroup.events")).value();
    CHECK(flat_keyed_value(events, "frozen") == 0);
}

TEST_CASE("read_procs lists the pids of the cgroup", "[cgroup]") {
    testing::ScratchCgroups scratch;
    auto cgroup = create_cgroup(scratch.plan("procs"));
    REQUIRE(cgroup);
    CHECK(read_procs(cgroup->location()).value().empty());
    auto child = testing::spawn_in_cgroup(cgroup->dir_fd(), [] {
        ::pause();
        return 0;
    });
    CHECK(read_procs(cgroup->location()).value() == std::vector<pid_t>{child.pid()});
}

TEST_CASE("operations refuse paths that are not clean absolute cgroup paths", "[cgroup]") {
    auto mount = find_v2_mount().value();
    CHECK_FALSE(remove_cgroup({mount, "/husk/../.."}));
    CHECK_FALSE(kill_all({mount, "/"}, SIGKILL));
    CHECK_FALSE(read_procs({mount, "relative"}));
    CHECK_FALSE(remove_cgroup({"/tmp", "/husk/x"}));
}
