#include "state/state_dir.hpp"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <csignal>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <string>

#include "base/fs.hpp"
#include "base/proc_stat.hpp"
#include "husk/unique_fd.hpp"

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

husk::ContainerId id(const char* text) { return husk::ContainerId::parse(text).value(); }

std::vector<std::string> names(const std::vector<husk::ContainerId>& ids) {
    std::vector<std::string> out;
    for (const auto& one : ids) out.push_back(one.str());
    return out;
}
}  // namespace

TEST_CASE("a second create of the same id fails and leaves the first intact", "[state]") {
    TempRoot root;
    auto first = StateDir::create(root.path, id("c1"));
    REQUIRE(first);
    Record r;
    r.id = "c1";
    REQUIRE(first->write_record(r));
    auto second = StateDir::create(root.path, id("c1"));
    REQUIRE_FALSE(second);
    CHECK(second.error().message() == "container with id \"c1\" already exists");
    CHECK(first->read_record().value().id == "c1");
    CHECK(names(list_ids(root.path)) == std::vector<std::string>{"c1"});
}

TEST_CASE("opening an unknown id says the container does not exist", "[state]") {
    TempRoot root;
    auto dir = StateDir::open(root.path, id("nope"));
    REQUIRE_FALSE(dir);
    CHECK(dir.error().message() == "container does not exist");
    CHECK(dir.error().kind == husk::ErrorKind::not_found);
}

TEST_CASE("the creator's lock is visible to others until it is released", "[state]") {
    TempRoot root;
    auto created = StateDir::create(root.path, id("c2"));
    REQUIRE(created);
    auto other = StateDir::open(root.path, id("c2"));
    REQUIRE(other);
    CHECK(other->locked_by_other());
    created->remove().value();
    CHECK(list_ids(root.path).empty());
}

TEST_CASE("only the temporary directories of dead creates of that id are removed", "[state]") {
    TempRoot root;
    pid_t child = fork();
    if (child == 0) {
        pause();
        _exit(0);
    }
    auto dead_start = husk::read_proc_stat(child).value().start_time;
    kill(child, SIGKILL);
    waitpid(child, nullptr, 0);
    auto own_start = husk::read_proc_stat(getpid()).value().start_time;
    auto make = [&](const std::string& name) {
        std::string path = root.path + "/" + name;
        mkdir(path.c_str(), 0700);
        std::system(("touch '" + path + "/lock'").c_str());
        return path;
    };
    std::string dead = make(".creating@c1@" + std::to_string(child) + "." + std::to_string(dead_start) + "-Ab3xYz");
    std::string live = make(".creating@c1@" + std::to_string(getpid()) + "." + std::to_string(own_start) + "-Qw9eRt");
    std::string other = make(".creating@c1-2@" + std::to_string(child) + "." + std::to_string(dead_start) + "-Zx1cVb");
    // A real container whose valid id has the shape the temporaries had when they were named with '-': its state
    // dir must never be taken for a temporary of c1.
    std::string real = make(".creating-c1-" + std::to_string(child) + "." + std::to_string(dead_start) + "-Ab3xYz");
    remove_abandoned_creations(root.path, id("c1"));
    CHECK(access(dead.c_str(), F_OK) != 0);
    CHECK(access(live.c_str(), F_OK) == 0);
    CHECK(access(other.c_str(), F_OK) == 0);
    CHECK(access(real.c_str(), F_OK) == 0);
    remove_abandoned_creations(root.path, id("c1-2"));
    CHECK(access(other.c_str(), F_OK) != 0);
    CHECK(access(real.c_str(), F_OK) == 0);
}

TEST_CASE("create writes the first record before the directory appears under its id", "[state]") {
    TempRoot root;
    Record first;
    first.id = "c3";
    first.creator_pid = getpid();
    auto created = StateDir::create(root.path, id("c3"), &first);
    REQUIRE(created);
    auto opened = StateDir::open(root.path, id("c3"));
    REQUIRE(opened);
    CHECK(opened->read_record().value().creator_pid == getpid());
}

TEST_CASE("list_ids lists every valid id, dot ids too, and leaves out create's temporaries and invalid names", "[state]") {
    TempRoot root;
    for (const char* name : {"b", "a", ".dot", ".creating@a@1.2-Ab3xYz", "a b", "x,y"})
        mkdir((root.path + "/" + name).c_str(), 0700);
    CHECK(names(list_ids(root.path)) == std::vector<std::string>{".dot", "a", "b"});
    CHECK(list_ids(root.path + "/missing").empty());
}

TEST_CASE("the id tenants is reserved for the tenant ledgers and not listed", "[state]") {
    TempRoot root;
    auto made = StateDir::create(root.path, id("tenants"));
    REQUIRE_FALSE(made);
    CHECK(made.error().message().find("reserved") != std::string::npos);
    ::mkdir((root.path + "/tenants").c_str(), 0700);
    CHECK(list_ids(root.path).empty());
}

TEST_CASE("open_unlocked finds what open finds, without the lock file open", "[state]") {
    TempRoot root;
    auto created = StateDir::create(root.path, id("c9"));
    REQUIRE(created);
    Record r;
    r.id = "c9";
    REQUIRE(created->write_record(r));
    // The creator's lock is seen through the reader's probe, as with open().
    auto reader = StateDir::open_unlocked(root.path, id("c9"));
    REQUIRE(reader);
    CHECK(reader->read_record().value().id == "c9");
    CHECK(reader->locked_by_other());
    created->unlock();
    CHECK_FALSE(reader->locked_by_other());
    CHECK_FALSE(reader->lock(Lock::shared));
    // A directory without a lock file (or a dangling lock symlink) is no container, for both.
    // open_unlocked by path and under an open root.
    int root_fd = ::open(root.path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    REQUIRE(root_fd >= 0);
    CHECK(StateDir::open_unlocked(root.path, id("c9"), root_fd).value().read_record().value().id == "c9");
    using Open = husk::Result<StateDir> (*)(const std::string&, const husk::ContainerId&, int);
    Open locking = [](const std::string& r, const husk::ContainerId& i, int) { return StateDir::open(r, i); };
    Open by_path = [](const std::string& r, const husk::ContainerId& i, int) { return StateDir::open_unlocked(r, i); };
    for (Open open : {locking, by_path, Open(&StateDir::open_unlocked)}) {
        ::mkdir((root.path + "/bare").c_str(), 0700);
        auto bare = open(root.path, id("bare"), root_fd);
        REQUIRE_FALSE(bare);
        CHECK(bare.error().kind == husk::ErrorKind::not_found);
        REQUIRE(::symlink("nowhere", (root.path + "/bare/lock").c_str()) == 0);
        auto dangling = open(root.path, id("bare"), root_fd);
        REQUIRE_FALSE(dangling);
        CHECK(dangling.error().kind == husk::ErrorKind::not_found);
        ::unlink((root.path + "/bare/lock").c_str());
        auto none = open(root.path, id("none"), root_fd);
        REQUIRE_FALSE(none);
        CHECK(none.error().message() == "container does not exist");
        ::rmdir((root.path + "/bare").c_str());
    }
    ::close(root_fd);
}

TEST_CASE("a record reads back as written, and as the file says once another writer changed it", "[state]") {
    TempRoot root;
    auto dir = StateDir::create(root.path, id("c1"));
    REQUIRE(dir);
    Record r;
    r.id = "c1";
    r.pid = 42;
    r.annotations["a"] = "b";
    r.exit.emplace();
    r.exit->reason = "exited";
    r.exit->usage.cpu_usec = 7;
    r.monitor_error = "not part of state.json";
    REQUIRE(dir->write_record(r));
    Record expected = r;
    expected.monitor_error.reset();
    CHECK(dir->read_record().value() == expected);
    // Another process (a monitor, `husk kill`) rewrites the file: what this one wrote before is not returned.
    std::string other = encode_record(expected);
    other.replace(other.find("\"pid\":42"), 8, "\"pid\":43");
    husk::UniqueFd fd(::open(dir->path().c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    REQUIRE(husk::write_file_atomic(fd.get(), "state.json", other));
    CHECK(dir->read_record().value().pid == 43);
    CHECK(dir->read_record().value().pid == 43);
    // Not JSON any more: an error, not the record read before.
    REQUIRE(husk::write_file_atomic(fd.get(), "state.json", "{"));
    CHECK_FALSE(dir->read_record());
}
