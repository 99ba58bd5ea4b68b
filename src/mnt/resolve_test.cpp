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

TEST_CASE("open_mount_point names a mount point that resolves to the root through a symlink", "[mnt]") {
    // A rootfs whose /dev is a symlink to "/": the /dev tmpfs would have covered the whole rootfs.
    TempDir root("husk-mountpoint");
    REQUIRE(::symlink("/", (root.path + "/dev").c_str()) == 0);
    REQUIRE(::symlink("..", (root.path + "/up").c_str()) == 0);
    int root_fd = ::open(root.path.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
    REQUIRE(root_fd >= 0);
    auto dev = husk::mnt::open_mount_point(root_fd, "/dev", Create::directory);
    REQUIRE_FALSE(dev);
    CHECK(dev.error().message() == "mount point \"/dev\" resolves to the container's root \"/\" through a symlink "
                                   "in the rootfs: it is not a directory inside the rootfs");
    CHECK_FALSE(husk::mnt::open_mount_point(root_fd, "/up", Create::directory));
    // The root itself, named as such, is a legitimate target (a remount of "/").
    CHECK(husk::mnt::open_mount_point(root_fd, "/", Create::nothing));
    ::close(root_fd);
}

TEST_CASE("open_mount_point names a file where a directory is mounted, and the reverse", "[mnt]") {
    TempDir root("husk-mountpoint");
    REQUIRE(::mkdir((root.path + "/dir").c_str(), 0755) == 0);
    ::close(::open((root.path + "/file").c_str(), O_CREAT | O_WRONLY | O_CLOEXEC, 0644));
    REQUIRE(::symlink("/file", (root.path + "/dev").c_str()) == 0);
    int root_fd = ::open(root.path.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
    REQUIRE(root_fd >= 0);
    auto dev = husk::mnt::open_mount_point(root_fd, "/dev", Create::directory);
    REQUIRE_FALSE(dev);
    CHECK(dev.error().message() ==
          "mount point \"/dev\" is not a directory inside the rootfs (it resolves to a file)");
    auto dir = husk::mnt::open_mount_point(root_fd, "/dir", Create::file);
    REQUIRE_FALSE(dir);
    CHECK(dir.error().message() == "mount point \"/dir\" resolves to a directory, but a file is mounted on it");
    CHECK(husk::mnt::open_mount_point(root_fd, "/dir/new", Create::directory));
    CHECK(exists(root.path + "/dir/new"));
    ::close(root_fd);
}
