// Propagation, --no-pivot, /proc protection and refusals: what keeps the host's mounts out of reach.
// Same harness as rootfs_test.cpp (test_support.hpp).
#include "mnt/rootfs.hpp"

#include <fcntl.h>
#include <linux/magic.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <string>

#include "base/fs.hpp"
#include "mnt/test_support.hpp"

namespace mnt = husk::mnt;
namespace spec = husk::spec;
using namespace husk::mnt::testing;

TEST_CASE("mounts inside a bind of a shared host mount do not propagate back to the host", "[mnt]") {
    const std::string before = host_mountinfo();
    TempDir rootfs("husk-mnt-shared");
    TempDir host("husk-mnt-shared-host");
    spec::Spec s = base_spec();
    s.mounts.push_back(make_mount("/data", "bind", host / "src", {"rbind"}));
    s.mounts.push_back(make_mount("/data/inner", "tmpfs", "tmpfs", {}));
    const std::string leaked = " " + host.path + "/src/inner ";

    // A stand-in for a host whose mounts are shared (systemd makes "/" shared): a mount namespace of our own
    // with a shared tmpfs, so that the real host is never touched. prepare runs there, as husk's parent
    // would, and the container child is forked from it.
    pid_t fake_host = ::fork();
    REQUIRE(fake_host >= 0);
    if (fake_host == 0) {
        if (::unshare(CLONE_NEWNS) != 0 || ::mount(nullptr, "/", nullptr, MS_PRIVATE | MS_REC, nullptr) != 0) ::_exit(20);
        if (::mount("tmpfs", host.path.c_str(), "tmpfs", 0, nullptr) != 0) ::_exit(21);
        if (::mount(nullptr, host.path.c_str(), nullptr, MS_SHARED, nullptr) != 0) ::_exit(22);
        if (::mkdir((host / "src").c_str(), 0755) != 0) ::_exit(23);
        auto plan = mnt::prepare_rootfs(s, rootfs.path, {});
        if (!plan) ::_exit(24);
        pid_t container = ::fork();
        if (container == 0) {
            if (::unshare(CLONE_NEWNS) != 0) ::_exit(30);
            if (!mount_and_pivot(*plan)) ::_exit(31);
            struct statfs fs {};
            ::_exit(::statfs("/data/inner", &fs) == 0 && fs.f_type == TMPFS_MAGIC ? 0 : 32);
        }
        int status = 0;
        ::waitpid(container, &status, 0);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) ::_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 40);
        auto mountinfo = husk::read_file("/proc/self/mountinfo");
        ::_exit(mountinfo && mountinfo->find(leaked) == std::string::npos ? 0 : 50);
    }
    int status = 0;
    ::waitpid(fake_host, &status, 0);
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
    CHECK(host_mountinfo() == before);
}

TEST_CASE("rootfsPropagation and per-mount propagation options reach the mount table", "[mnt]") {
    const std::string before = host_mountinfo();
    TempDir rootfs("husk-mnt-propagation");
    TempDir host("husk-mnt-propagation-host");
    spec::Spec s = base_spec();
    s.mounts.push_back(make_mount("/proc", "proc", "proc", {}));
    s.mounts.push_back(make_mount("/shared", "bind", host.path, {"rbind", "rshared"}));
    s.mounts.push_back(make_mount("/private", "tmpfs", "tmpfs", {"private"}));
    s.linux->rootfs_propagation = GENERATE(std::string("rshared"), std::string("rprivate"), std::string("unbindable"));
    mnt::RootfsPlan plan = prepare(s, rootfs.path);
    Report r = run_container(UserNs::no, [&](const Reporter& out) {
        out.step("mounts and pivot", mount_and_pivot(plan));
        report_mounts(out);
    });
    INFO("rootfsPropagation " << s.linux->rootfs_propagation << "; error: " << r["error"]);
    REQUIRE(r["exit"] == "0");
    CHECK(r["mount:/shared"].find("shared:") != std::string::npos);
    // As with runc, an rshared rootfsPropagation is applied again to the whole new root after pivot_root,
    // over the per-mount "private".
    if (s.linux->rootfs_propagation != "rshared") CHECK(r["mount:/private"].find("shared:") == std::string::npos);
    const std::string& root = r["mount:/"];
    if (s.linux->rootfs_propagation == "rshared") CHECK(root.find("shared:") != std::string::npos);
    if (s.linux->rootfs_propagation == "rprivate") CHECK(root.find("shared:") == std::string::npos);
    if (s.linux->rootfs_propagation == "unbindable") CHECK(root.find("unbindable") != std::string::npos);
    CHECK(host_mountinfo() == before);
}

TEST_CASE("--no-pivot moves the rootfs over / and chroots into it", "[mnt]") {
    const std::string before = host_mountinfo();
    TempDir rootfs("husk-mnt-nopivot");
    write_text(rootfs / "marker", "inside");
    spec::Spec s = base_spec();
    s.mounts.push_back(make_mount("/proc", "proc", "proc", {}));
    mnt::RootfsPlan plan = prepare(s, rootfs.path, {.no_pivot = true, .terminal = false, .bundle = {}});
    Report r = run_container(UserNs::no, [&](const Reporter& out) {
        out.step("mounts and pivot", mount_and_pivot(plan));
        char cwd[256] = {};
        out.put("cwd", ::getcwd(cwd, sizeof cwd) ? cwd : "none");
        out.put("marker", content_of("/marker"));
    });
    INFO("error: " << r["error"]);
    REQUIRE(r["exit"] == "0");
    CHECK(r["cwd"] == "/");
    CHECK(r["marker"] == "inside");
    CHECK(host_mountinfo() == before);

    s.linux->rootfs_propagation = "rprivate";
    auto refused = mnt::prepare_rootfs(s, rootfs.path, {.no_pivot = true, .terminal = false, .bundle = {}});
    REQUIRE_FALSE(refused);
    CHECK(std::string(refused.error().what).find("not safe without pivot_root") != std::string::npos);
}

TEST_CASE("a mount reaching into /proc is refused, by its path or through a symlink", "[mnt]") {
    const std::string before = host_mountinfo();
    TempDir rootfs("husk-mnt-procfs");
    TempDir host("husk-mnt-procfs-host");
    write_text(host / "file", "x");
    spec::Spec s = base_spec();
    s.mounts.push_back(make_mount("/proc", "proc", "proc", {}));

    SECTION("by path, at prepare") {
        s.mounts.push_back(make_mount("/proc/self/attr/current", "bind", host / "file", {"bind"}));
        auto refused = mnt::prepare_rootfs(s, rootfs.path, {});
        REQUIRE_FALSE(refused);
        CHECK(std::string(refused.error().what) ==
              "mounts[1]: \"/proc/self/attr/current\" cannot be mounted because it is inside /proc");
    }
    SECTION("an lxcfs-style file is allowed") {
        s.mounts.push_back(make_mount("/proc/uptime", "bind", host / "file", {"bind"}));
        CHECK(mnt::prepare_rootfs(s, rootfs.path, {}));
    }
    SECTION("through a symlink, in the child") {
        REQUIRE(::symlink("/proc/sys/kernel", (rootfs / "sneaky").c_str()) == 0);
        s.mounts.push_back(make_mount("/sneaky/hostname", "bind", host / "file", {"bind"}));
        mnt::RootfsPlan plan = prepare(s, rootfs.path);
        Report r = run_container(UserNs::no, [&](const Reporter& out) { out.step("mounts", hold_and_mount(plan)); });
        CHECK(r["exit"] == "3");
        CHECK(r["error"].find("resolves inside /proc") != std::string::npos);
    }
    CHECK(host_mountinfo() == before);
}

TEST_CASE("prepare_rootfs refuses configurations it cannot apply safely", "[mnt]") {
    TempDir rootfs("husk-mnt-refuse");
    spec::Spec s = base_spec();
    SECTION("no mount namespace") {
        s.linux->namespaces = {{"pid", ""}};
        auto r = mnt::prepare_rootfs(s, rootfs.path, {});
        REQUIRE_FALSE(r);
        CHECK(std::string(r.error().what).find("\"mount\" namespace is required") != std::string::npos);
    }
    SECTION("unknown rootfsPropagation") {
        s.linux->rootfs_propagation = "sideways";
        auto r = mnt::prepare_rootfs(s, rootfs.path, {});
        REQUIRE_FALSE(r);
        CHECK(std::string(r.error().what) == "linux.rootfsPropagation: unknown propagation \"sideways\"");
    }
    SECTION("tmpcopyup on anything but a new tmpfs") {
        s.mounts.push_back(make_mount("/tmp", "bind", "/tmp", {"rbind", "tmpcopyup"}));
        auto r = mnt::prepare_rootfs(s, rootfs.path, {});
        REQUIRE_FALSE(r);
        CHECK(std::string(r.error().what) == "mounts[0]: options: \"tmpcopyup\" applies only to a new tmpfs");
    }
    SECTION("idmapped mount") {
        s.mounts.push_back(make_mount("/data", "bind", "/tmp", {"rbind"}));
        s.mounts.back().uid_mappings = {{0, 1000, 1}};
        auto r = mnt::prepare_rootfs(s, rootfs.path, {});
        REQUIRE_FALSE(r);
        CHECK(std::string(r.error().what).find("idmapped mounts are not implemented") != std::string::npos);
    }
    SECTION("missing bind source") {
        s.mounts.push_back(make_mount("/data", "bind", "/nonexistent/husk", {"rbind"}));
        auto r = mnt::prepare_rootfs(s, rootfs.path, {});
        REQUIRE_FALSE(r);
        CHECK(r.error().message() == "mounts[0]: open bind source \"/nonexistent/husk\": no such file or directory");
    }
    SECTION("unknown device type") {
        spec::Device d;
        d.type = "x";
        d.path = "/dev/x";
        s.linux->devices.push_back(d);
        auto r = mnt::prepare_rootfs(s, rootfs.path, {});
        REQUIRE_FALSE(r);
        CHECK(std::string(r.error().what).find("linux.devices[0]: type: unknown device type \"x\"") == 0);
    }
}

TEST_CASE("a bad filesystem option fails in the child with the kernel's own explanation", "[mnt]") {
    TempDir rootfs("husk-mnt-badopt");
    spec::Spec s = base_spec();
    s.mounts.push_back(make_mount("/tmp", "tmpfs", "tmpfs", {"size=lots"}));
    mnt::RootfsPlan plan = prepare(s, rootfs.path);
    Report r = run_container(UserNs::no, [&](const Reporter& out) { out.step("mounts", hold_and_mount(plan)); });
    CHECK(r["exit"] == "3");
    CHECK(r["error"].find("fsconfig size for \"/tmp\"") != std::string::npos);
    CHECK(r["error"].find("Bad value for 'size'") != std::string::npos);  // from the fs context log
    CHECK(r["error"].find("invalid argument") != std::string::npos);
}
