// Limits on this host's real v2 hierarchy. Only hugetlb is there on the hybrid development host (and in
// every v2 hierarchy with huge pages), so hugetlb stands in for the controllers the VM suite covers.
#include <fcntl.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include "base/fs.hpp"
#include "cgroup/cgroup.hpp"
#include "cgroup/limits.hpp"
#include "cgroup/test_cgroup.hpp"

using namespace husk::cgroup;
namespace spec = husk::spec;

namespace {

bool exists(const std::string& path) { return ::access(path.c_str(), F_OK) == 0; }

std::string read_text(const std::string& path) {
    auto text = husk::read_file(path);
    return text ? *text : "<" + text.error().message() + ">";
}

bool has_2mb_huge_pages(const testing::ScratchCgroups& scratch) {
    return exists(scratch.mount() + "/cgroup.controllers") &&
           read_text(scratch.mount() + "/cgroup.controllers").find("hugetlb") != std::string::npos &&
           exists("/sys/kernel/mm/hugepages/hugepages-2048kB");
}

spec::Spec spec_at(const std::string& cgroups_path, spec::Resources resources) {
    spec::Spec s;
    s.linux.emplace();
    s.linux->cgroups_path = cgroups_path;
    s.linux->resources = std::move(resources);
    return s;
}

spec::Resources huge_pages(std::uint64_t limit) {
    spec::Resources r;
    r.hugepage_limits.push_back({"2MB", limit});
    return r;
}

// The errno of open(path) in a child started inside the cgroup (0: it opened).
int open_errno_in(int cgroup_fd, const char* path) {
    auto child = testing::spawn_in_cgroup(cgroup_fd, [path] {
        int fd = ::open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
        return fd < 0 ? errno : 0;
    });
    int status = child.wait();
    REQUIRE(WIFEXITED(status));
    return WEXITSTATUS(status);
}

}  // namespace

TEST_CASE("create_cgroup enables hugetlb down the tree and reads back hugetlb.2MB.max", "[cgroup]") {
    testing::ScratchCgroups scratch;
    if (!has_2mb_huge_pages(scratch)) {
        WARN("no hugetlb controller with 2MB pages in the v2 hierarchy");  // Catch2 2.13 has no SKIP
        return;
    }
    auto plan = prepare_cgroup(spec_at(scratch.path("a/c1"), huge_pages(5 << 20)), {}, "c1", Manager::cgroupfs);
    REQUIRE(plan);
    CHECK(plan->controllers == std::vector<std::string>{"hugetlb"});
    auto cgroup = create_cgroup(*plan);
    if (!cgroup) FAIL(cgroup.error().message());

    CHECK(read_text(scratch.host_path("a/c1/hugetlb.2MB.max")) == "4194304\n");  // whole huge pages
    if (exists(scratch.host_path("a/c1/hugetlb.2MB.rsvd.max")))
        CHECK(read_text(scratch.host_path("a/c1/hugetlb.2MB.rsvd.max")) == "4194304\n");
    for (const std::string& dir : {scratch.mount(), scratch.mount() + scratch.root(), scratch.host_path("a")})
        CHECK(read_text(dir + "/cgroup.subtree_control").find("hugetlb") != std::string::npos);
    CHECK(read_text(scratch.host_path("a/c1/cgroup.subtree_control")).find("hugetlb") == std::string::npos);
    CHECK(remove_cgroup(*cgroup));
}

TEST_CASE("a unified key that is no file of the new cgroup fails create and leaves nothing", "[cgroup]") {
    testing::ScratchCgroups scratch;
    spec::Resources r;
    r.unified["hugetlb.3MB.max"] = "0";
    if (!has_2mb_huge_pages(scratch)) {
        WARN("no hugetlb controller in the v2 hierarchy");  // Catch2 2.13 has no SKIP
        return;
    }
    auto plan = prepare_cgroup(spec_at(scratch.path("c1"), r), {}, "c1", Manager::cgroupfs);
    REQUIRE(plan);
    auto cgroup = create_cgroup(*plan);
    REQUIRE_FALSE(cgroup);
    CHECK(cgroup.error().message() == "linux.resources.unified[\"hugetlb.3MB.max\"]: not an interface file of cgroup " +
                                          scratch.host_path("c1"));
    CHECK_FALSE(exists(scratch.mount() + scratch.root()));
}

TEST_CASE("a value the kernel refuses fails create naming field and file, and rolls back", "[cgroup]") {
    testing::ScratchCgroups scratch;
    if (!has_2mb_huge_pages(scratch)) {
        WARN("no hugetlb controller in the v2 hierarchy");  // Catch2 2.13 has no SKIP
        return;
    }
    spec::Resources r;
    r.unified["hugetlb.2MB.max"] = "lots";
    auto plan = prepare_cgroup(spec_at(scratch.path("c1"), r), {}, "c1", Manager::cgroupfs);
    REQUIRE(plan);
    auto cgroup = create_cgroup(*plan);
    REQUIRE_FALSE(cgroup);
    CHECK(cgroup.error().message() == "linux.resources.unified[\"hugetlb.2MB.max\"]: write \"lots\" to \"" +
                                          scratch.host_path("c1") + "/hugetlb.2MB.max\": invalid argument");
    CHECK_FALSE(exists(scratch.mount() + scratch.root()));
}

TEST_CASE("a parent with processes of its own cannot hand down a controller (no internal processes)", "[cgroup]") {
    testing::ScratchCgroups scratch;
    if (!has_2mb_huge_pages(scratch)) {
        WARN("no hugetlb controller in the v2 hierarchy");  // Catch2 2.13 has no SKIP
        return;
    }
    auto parent = create_cgroup(scratch.plan("busy"));
    REQUIRE(parent);
    auto child = testing::spawn_in_cgroup(parent->dir_fd(), [] {
        ::pause();
        return 0;
    });
    auto plan = prepare_cgroup(spec_at(scratch.path("busy/c1"), huge_pages(2 << 20)), {}, "c1", Manager::cgroupfs);
    REQUIRE(plan);
    auto cgroup = create_cgroup(*plan);
    REQUIRE_FALSE(cgroup);
    std::string where = scratch.host_path("busy");
    CHECK(cgroup.error().message().starts_with("cannot write \"+hugetlb\" to " + where + "/cgroup.subtree_control: " +
                                               where + " has processes of its own"));
    CHECK_FALSE(exists(scratch.host_path("busy/c1")));
}

TEST_CASE("update_cgroup changes a live limit and replaces the device program", "[cgroup]") {
    testing::ScratchCgroups scratch;
    if (!has_2mb_huge_pages(scratch)) {
        WARN("no hugetlb controller in the v2 hierarchy");  // Catch2 2.13 has no SKIP
        return;
    }
    spec::Resources r = huge_pages(2 << 20);
    r.devices.push_back({false, "a", {}, {}, "rwm"});
    spec::Spec container = spec_at(scratch.path("c1"), r);
    auto plan = prepare_cgroup(container, {}, "c1", Manager::cgroupfs);
    REQUIRE(plan);
    auto cgroup = create_cgroup(*plan);
    REQUIRE(cgroup);
    CHECK(open_errno_in(cgroup->dir_fd(), "/dev/kmsg") == EPERM);  // 1:11 is not in the default list

    spec::Resources change = huge_pages(8 << 20);
    change.devices = r.devices;
    change.devices.push_back({true, "c", 1, 11, "r"});
    auto updated = update_cgroup(cgroup->location(), change, container, {});
    if (!updated) FAIL(updated.error().message());
    CHECK(read_text(scratch.host_path("c1/hugetlb.2MB.max")) == "8388608\n");
    // Both programs would have to allow it: this opens only if the old one was detached.
    CHECK(open_errno_in(cgroup->dir_fd(), "/dev/kmsg") == 0);

    // Fails closed, changing nothing: no memory controller here (hybrid) or a bad swap on a v2 host.
    spec::Resources refused = huge_pages(2 << 20);
    refused.memory.emplace();
    refused.memory->limit = 1 << 20;
    refused.memory->swap = 1 << 10;
    auto failed = update_cgroup(cgroup->location(), refused, container, {});
    REQUIRE_FALSE(failed);
    CHECK(failed.error().message().starts_with("linux.resources.memory."));
    CHECK(read_text(scratch.host_path("c1/hugetlb.2MB.max")) == "8388608\n");
    CHECK(remove_cgroup(*cgroup));
}
