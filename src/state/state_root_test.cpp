#include "state/state_root.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>
#include <string>

#include "state/state_dir.hpp"

using namespace husk::state;

namespace {

struct TempRoot {
    std::string path;
    TempRoot() {
        char tmpl[] = "/tmp/husk-state-root-test-XXXXXX";
        path = mkdtemp(tmpl);
    }
    ~TempRoot() { std::system(("rm -rf '" + path + "'").c_str()); }
};

husk::ContainerId id(const char* text) { return husk::ContainerId::parse(text).value(); }

// <root>/<name> as create leaves it: the lock file and the record `text`.
void make_container(const std::string& root, const std::string& name, const std::string& text) {
    ::mkdir((root + "/" + name).c_str(), 0700);
    std::ofstream(root + "/" + name + "/lock").flush();
    std::ofstream(root + "/" + name + "/state.json") << text;
}

std::string record_text(const char* id, const char* bundle) {
    Record r;
    r.id = id;
    r.bundle = bundle;
    return encode_record(r);
}

}  // namespace

TEST_CASE("the state root reads a plain record and checks the lock file under its own fd", "[state]") {
    TempRoot root;
    make_container(root.path, "c1", record_text("c1", "/b1"));
    auto reader = StateRoot::open(root.path);
    REQUIRE(reader);
    auto record = reader->read_plain_record(id("c1"));
    REQUIRE(record);
    CHECK(record->id == "c1");
    CHECK(record->bundle == "/b1");
    CHECK_FALSE(record->monitor_error);
    CHECK(reader->has_lock(id("c1")));
    ::unlink((root.path + "/c1/lock").c_str());
    CHECK_FALSE(reader->has_lock(id("c1")));
    CHECK_FALSE(reader->read_plain_record(id("missing")));
    CHECK_FALSE(reader->has_lock(id("missing")));
    CHECK_FALSE(StateRoot::open(root.path + "/missing"));
}

TEST_CASE("the state root leaves to StateDir every record that is not a plain file", "[state]") {
    TempRoot root;
    auto reader = StateRoot::open(root.path);
    REQUIRE(reader);
    const std::string text = record_text("x", "/b");
    SECTION("no record yet") {
        ::mkdir((root.path + "/x").c_str(), 0700);
    }
    SECTION("a corrupt record") {
        make_container(root.path, "x", text.substr(0, text.size() / 2));
    }
    SECTION("an empty record") {
        make_container(root.path, "x", "");
    }
    SECTION("the directory is a symlink") {
        make_container(root.path, "real", text);
        REQUIRE(::symlink("real", (root.path + "/x").c_str()) == 0);
    }
    SECTION("state.json is a symlink") {
        make_container(root.path, "x", "");
        std::ofstream(root.path + "/elsewhere.json") << text;
        ::unlink((root.path + "/x/state.json").c_str());
        REQUIRE(::symlink("../elsewhere.json", (root.path + "/x/state.json").c_str()) == 0);
    }
    SECTION("state.json is a FIFO") {
        make_container(root.path, "x", "");
        ::unlink((root.path + "/x/state.json").c_str());
        REQUIRE(::mkfifo((root.path + "/x/state.json").c_str(), 0600) == 0);
    }
    SECTION("state.json is a directory") {
        make_container(root.path, "x", "");
        ::unlink((root.path + "/x/state.json").c_str());
        REQUIRE(::mkdir((root.path + "/x/state.json").c_str(), 0700) == 0);
    }
    SECTION("a record larger than the buffer") {
        Record r;
        r.id = "x";
        r.annotations["big"] = std::string(std::size_t{64} << 10, 'a');
        make_container(root.path, "x", encode_record(r));
        // StateDir reads it whole.
        CHECK(StateDir::open_unlocked(root.path, id("x")).value().read_record().value().annotations["big"].size() ==
              std::size_t{64} << 10);
    }
    CHECK_FALSE(reader->read_plain_record(id("x")));
    // The buffer serves the next container as before.
    make_container(root.path, "y", record_text("y", "/by"));
    CHECK(reader->read_plain_record(id("y")).value().bundle == "/by");
}
