#include "state/state_dir.hpp"

#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <string>

using namespace husk::state;

namespace {
struct TempRoot {
    std::string path;
    TempRoot() {
        char tmpl[] = "/tmp/husk-state-test-XXXXXX";
        path = mkdtemp(tmpl);
    }
    ~TempRoot() { std::system(("rm -rf '" + path + "'").c_str()); }
};
}  // namespace

TEST_CASE("a second create of the same id fails and leaves the first intact", "[state]") {
    TempRoot root;
    auto first = StateDir::create(root.path, "c1");
    REQUIRE(first);
    Record r;
    r.id = "c1";
    REQUIRE(first->write_record(r));
    auto second = StateDir::create(root.path, "c1");
    REQUIRE_FALSE(second);
    CHECK(second.error().message() == "container with id \"c1\" already exists");
    CHECK(first->read_record().value().id == "c1");
    CHECK(list_ids(root.path) == std::vector<std::string>{"c1"});
}

TEST_CASE("opening an unknown id says the container does not exist", "[state]") {
    TempRoot root;
    auto dir = StateDir::open(root.path, "nope");
    REQUIRE_FALSE(dir);
    CHECK(dir.error().message() == "container does not exist");
}

TEST_CASE("the creator's lock is visible to others until it is released", "[state]") {
    TempRoot root;
    auto created = StateDir::create(root.path, "c2");
    REQUIRE(created);
    auto other = StateDir::open(root.path, "c2");
    REQUIRE(other);
    CHECK(other->locked_by_other());
    created->remove().value();
    CHECK(list_ids(root.path).empty());
}
