// find_delegated_subtree: which cgroup on the way down to husk's own is the top of what is delegated to the
// caller. The checks are ownership and write access, so a directory tree stands in for the hierarchy here; the
// VM suite uses a real delegated cgroup (tests/integration/vm_rootless_test.cpp).
#include "cgroup/delegation.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>
#include <string>

using husk::cgroup::find_delegated_subtree;

namespace {

struct Tree {
    std::string root;
    Tree() {
        char name[] = "/tmp/husk-delegation-XXXXXX";
        REQUIRE(::mkdtemp(name) != nullptr);
        root = name;
    }
    ~Tree() { std::system(("rm -rf " + root).c_str()); }
    // A cgroup directory with the two files a delegate writes, owned by uid.
    void cgroup(const std::string& path, uid_t uid) const {
        const std::string dir = root + path;
        REQUIRE(::mkdir(dir.c_str(), 0755) == 0);
        for (const char* file : {"cgroup.procs", "cgroup.subtree_control"}) {
            std::ofstream(dir + "/" + file).put('\n');
            REQUIRE(::chown((dir + "/" + file).c_str(), uid, uid) == 0);
        }
        REQUIRE(::chown(dir.c_str(), uid, uid) == 0);
    }
};

}  // namespace

TEST_CASE("find_delegated_subtree: the highest cgroup of the caller's on the way to its own", "[cgroup][delegation]") {
    Tree tree;
    const auto top_of = [&](std::string_view own, uid_t uid) {
        auto top = find_delegated_subtree(tree.root, own, uid);
        REQUIRE(top);
        return *top;
    };
    tree.cgroup("/user.slice", 0);
    tree.cgroup("/user.slice/service", 4242);
    tree.cgroup("/user.slice/service/app", 4242);
    tree.cgroup("/user.slice/service/app/leaf", 4242);
    CHECK(top_of("/user.slice/service/app/leaf", 4242) == "/user.slice/service");
    // Another user's: nothing delegated to it on that way.
    CHECK_FALSE(top_of("/user.slice/service/app/leaf", 4343));
    // A break in the chain ends it: a cgroup of root's between two of the caller's.
    tree.cgroup("/user.slice/service/rooted", 0);
    tree.cgroup("/user.slice/service/rooted/mine", 4242);
    CHECK(top_of("/user.slice/service/rooted/mine", 4242) == "/user.slice/service/rooted/mine");
    // The root cgroup is never delegated.
    CHECK_FALSE(top_of("/", 0));
}
