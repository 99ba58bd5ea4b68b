#include "base/caller_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "base/fs.hpp"

using husk::open_caller_file;
using Catch::Matchers::Contains;

namespace {

// A directory of the test's own under /tmp (sticky, world-writable: its entries are judged by their owner).
struct Tree {
    std::string root;
    Tree() {
        char path[] = "/tmp/husk-caller-file-XXXXXX";
        REQUIRE(::mkdtemp(path) != nullptr);
        root = path;
    }
    ~Tree() {
        std::error_code ignored;
        std::filesystem::remove_all(root, ignored);
    }
    std::string dir(const std::string& name, mode_t mode, uid_t owner = 0) const {
        std::string path = root + "/" + name;
        REQUIRE(::mkdir(path.c_str(), mode) == 0);
        REQUIRE(::chmod(path.c_str(), mode) == 0);  // past the umask
        REQUIRE(::chown(path.c_str(), owner, 0) == 0);
        return path;
    }
    std::string message(const std::string& path) const {
        auto opened = open_caller_file(path, "--verdict");
        REQUIRE_FALSE(opened);
        return opened.error().message();
    }
};

constexpr uid_t other = 4242;  // no account: "another user"

}  // namespace

TEST_CASE("a caller's file in directories only root writes is opened, absent or a regular file", "[base]") {
    Tree t;
    std::string safe = t.dir("safe", 0755);
    auto absent = open_caller_file(safe + "/v.json", "--verdict");
    REQUIRE(absent);
    CHECK(absent->name == "v.json");
    husk::write_file_atomic(absent->dir.get(), "v.json", "{}");
    CHECK(open_caller_file(safe + "/v.json", "--verdict"));
    // A symlink among the directories is followed when a trusted directory holds it.
    REQUIRE(::symlink(safe.c_str(), (t.root + "/link").c_str()) == 0);
    REQUIRE(::lchown((t.root + "/link").c_str(), 0, 0) == 0);
    CHECK(open_caller_file(t.root + "/link/v.json", "--verdict"));
    CHECK(open_caller_file(t.root + "/link/../safe/v.json", "--verdict"));
}

TEST_CASE("a directory another user can write is refused, naming it", "[base]") {
    Tree t;
    std::string theirs = t.dir("theirs", 0755, other);
    std::string open = t.dir("open", 0777);
    CHECK_THAT(t.message(open + "/v.json"), Contains(open + " is writable by every user"));
    std::string group = t.dir("group", 0775);
    REQUIRE(::chown(group.c_str(), 0, 4242) == 0);
    CHECK_THAT(t.message(group + "/v.json"), Contains("is writable by group 4242"));
    // Below such a directory, nothing is trusted: it could have been swapped for anything.
    std::string deep = theirs + "/safe";
    REQUIRE(::mkdir(deep.c_str(), 0755) == 0);
    CHECK_THAT(t.message(deep + "/v.json"), Contains(theirs + " is owned by uid 4242"));
}

TEST_CASE("the file's own directory may be another user's alone, and the file there has a single name", "[base]") {
    Tree t;
    std::string theirs = t.dir("theirs", 0700, other);
    auto absent = open_caller_file(theirs + "/v.json", "--verdict");
    REQUIRE(absent);
    CHECK(absent->foreign_directory);
    REQUIRE(husk::append_caller_file(theirs + "/log", "--log", "one\n"));
    CHECK(husk::read_file(theirs + "/log").value() == "one\n");
    std::string safe = t.dir("safe", 0755);
    husk::write_file_atomic(husk::open_fd(safe, O_RDONLY | O_DIRECTORY).value().get(), "secret", "root's\n");
    REQUIRE(::link((safe + "/secret").c_str(), (theirs + "/linked").c_str()) == 0);
    CHECK_THAT(t.message(theirs + "/linked"), Contains("has 2 names in a directory of another user's"));
    CHECK_FALSE(husk::append_caller_file(theirs + "/linked", "--log", "steered\n"));
    CHECK(husk::read_file(safe + "/secret").value() == "root's\n");
    CHECK_FALSE(open_caller_file(safe + "/v.json", "--verdict")->foreign_directory);
}

TEST_CASE("in a sticky directory only root's or the caller's entries are followed or replaced", "[base]") {
    Tree t;  // /tmp/husk-caller-file-X is root's, in sticky /tmp
    std::string sticky = t.dir("sticky", 01777);
    CHECK(open_caller_file(sticky + "/v.json", "--verdict"));
    std::string planted = sticky + "/v.json";
    husk::write_file_atomic(husk::open_fd(sticky, O_RDONLY | O_DIRECTORY).value().get(), "v.json", "{}");
    REQUIRE(::chown(planted.c_str(), other, 0) == 0);
    CHECK_THAT(t.message(planted), Contains("belongs to uid 4242 in a sticky directory"));
    REQUIRE(::symlink("/etc", (sticky + "/evil").c_str()) == 0);
    REQUIRE(::lchown((sticky + "/evil").c_str(), other, 0) == 0);
    CHECK_THAT(t.message(sticky + "/evil/v.json"), Contains("/evil belongs to uid 4242 in a sticky directory"));
}

TEST_CASE("the file itself is never a symlink, and a directory or FIFO there is refused before anything runs",
          "[base]") {
    Tree t;
    std::string safe = t.dir("safe", 0755);
    REQUIRE(::symlink("/etc/shadow", (safe + "/link.json").c_str()) == 0);
    CHECK_THAT(t.message(safe + "/link.json"), Contains("is a symbolic link, which husk does not follow"));
    REQUIRE(::mkdir((safe + "/dir.json").c_str(), 0755) == 0);
    CHECK_THAT(t.message(safe + "/dir.json"), Contains("is not a regular file"));
    REQUIRE(::mkfifo((safe + "/fifo.json").c_str(), 0644) == 0);
    CHECK_THAT(t.message(safe + "/fifo.json"), Contains("is not a regular file"));
    CHECK_THAT(t.message(safe + "/"), Contains("names a directory, not a file"));
    CHECK_THAT(t.message(safe + "/missing/v.json"), Contains("no such file or directory"));
}

TEST_CASE("append_caller_file appends to a regular file and never blocks on a FIFO planted since the check", "[base]") {
    Tree t;
    std::string safe = t.dir("safe", 0755);
    REQUIRE(husk::append_caller_file(safe + "/log", "--log", "one\n"));
    REQUIRE(husk::append_caller_file(safe + "/log", "--log", "two\n"));
    CHECK(husk::read_file(safe + "/log").value() == "one\ntwo\n");
    REQUIRE(::mkfifo((safe + "/fifo").c_str(), 0644) == 0);
    auto fifo = husk::append_caller_file(safe + "/fifo", "--log", "x\n");
    REQUIRE_FALSE(fifo);
    CHECK_THAT(fifo.error().message(), Contains("not a regular file"));
}
