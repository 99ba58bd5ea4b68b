#include "mnt/resolve.hpp"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <string>

using husk::mnt::clean_path;
using husk::mnt::Create;
using husk::mnt::open_in_root;
using husk::mnt::split_path;

namespace {

// A temporary directory removed with everything in it (symlinks are removed, never followed).
struct TempDir {
    std::string path;
    explicit TempDir(const char* prefix) {
        std::string pattern = std::string("/tmp/") + prefix + "-XXXXXX";
        REQUIRE(::mkdtemp(pattern.data()) != nullptr);
        path = pattern;
    }
    ~TempDir() {
        std::error_code ignored;
        std::filesystem::remove_all(path, ignored);
    }
};

bool exists(const std::string& path) {
    struct stat st {};
    return ::lstat(path.c_str(), &st) == 0;
}

}  // namespace

TEST_CASE("clean_path collapses slashes, dots and dot-dots and never climbs above the root", "[mnt]") {
    CHECK(clean_path("/") == "/");
    CHECK(clean_path("") == "/");
    CHECK(clean_path("/a//b/./c/../d/") == "/a/b/d");
    CHECK(clean_path("/../../etc") == "/etc");
    CHECK(clean_path("dev/shm") == "/dev/shm");
    CHECK(clean_path("./proc/../sys") == "/sys");
    CHECK(clean_path("/a/b/../../..") == "/");
}

TEST_CASE("split_path gives the directory and the last component", "[mnt]") {
    CHECK(split_path("/dev/fuse") == std::pair<std::string, std::string>{"/dev", "fuse"});
    CHECK(split_path("/dev/net/tun") == std::pair<std::string, std::string>{"/dev/net", "tun"});
    CHECK(split_path("/console") == std::pair<std::string, std::string>{"/", "console"});
}

TEST_CASE("open_in_root creates missing directories and a file target", "[mnt]") {
    TempDir root("husk-resolve");
    husk::UniqueFd root_fd(::open(root.path.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    REQUIRE(root_fd);
    REQUIRE(open_in_root(root_fd.get(), "/a/b/c", Create::directory));
    CHECK(std::filesystem::is_directory(root.path + "/a/b/c"));
    REQUIRE(open_in_root(root_fd.get(), "/x/y/file", Create::file));
    CHECK(std::filesystem::is_regular_file(root.path + "/x/y/file"));
    // Opening what exists creates nothing and succeeds.
    REQUIRE(open_in_root(root_fd.get(), "/x/y/file", Create::nothing));
    auto missing = open_in_root(root_fd.get(), "/nope/file", Create::nothing);
    REQUIRE_FALSE(missing);
    CHECK(missing.error().err == ENOENT);
    CHECK_FALSE(exists(root.path + "/nope"));
}

TEST_CASE("open_in_root follows a symlink pointing outside as if the rootfs were /", "[mnt]") {
    TempDir root("husk-resolve-root");
    TempDir outside("husk-resolve-outside");
    // rootfs/mnt -> <outside> (absolute) and rootfs/up -> ../../.. (relative): both must stay inside.
    REQUIRE(::symlink(outside.path.c_str(), (root.path + "/mnt").c_str()) == 0);
    REQUIRE(::symlink("../../..", (root.path + "/up").c_str()) == 0);
    // The link's target, taken inside the rootfs, exists there too.
    std::filesystem::create_directories(root.path + outside.path);
    husk::UniqueFd root_fd(::open(root.path.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    REQUIRE(root_fd);

    REQUIRE(open_in_root(root_fd.get(), "/mnt/created/file", Create::file));
    CHECK(std::filesystem::is_regular_file(root.path + outside.path + "/created/file"));
    CHECK(std::filesystem::is_empty(outside.path));

    REQUIRE(open_in_root(root_fd.get(), "/up/tmp/escape", Create::directory));
    CHECK(std::filesystem::is_directory(root.path + "/tmp/escape"));
    CHECK_FALSE(exists("/tmp/escape"));
}

TEST_CASE("open_in_root reports a dangling symlink on the way instead of creating through it", "[mnt]") {
    TempDir root("husk-resolve-dangling");
    // "link" exists (as a symlink to nothing) so it cannot be created, and it does not resolve: an error
    // naming it, rather than a guess at what to create.
    REQUIRE(::symlink("/missing/dir", (root.path + "/link").c_str()) == 0);
    husk::UniqueFd root_fd(::open(root.path.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    auto result = open_in_root(root_fd.get(), "/link/target", Create::directory);
    REQUIRE_FALSE(result);
    CHECK(result.error().err == ENOENT);
    CHECK(std::string(result.error().what).find("dangling symlink") != std::string::npos);
    CHECK_FALSE(exists("/missing/dir"));
}
