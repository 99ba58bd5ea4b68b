// prepare_rootfs in the test process, the apply_* steps in a forked child inside new namespaces, the way
// the container child runs them (test_support.hpp). Every test also checks that the host's own
// /proc/self/mountinfo did not change.
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

TEST_CASE("the full rootfs sequence builds the container's view and leaves the host's mounts alone", "[mnt]") {
    const std::string before = host_mountinfo();
    TempDir rootfs("husk-mnt-rootfs");
    TempDir host("husk-mnt-host");
    write_text(host / "hello", "hi from the host");
    write_text(host / "hostfile", "file content");
    std::filesystem::create_directories(rootfs / "inside");
    std::filesystem::create_directories(rootfs / "etc");
    // An absolute symlink to the host's /etc: mounting at /etcmnt must land in the rootfs's own /etc.
    REQUIRE(::symlink("/etc", (rootfs / "etcmnt").c_str()) == 0);
    REQUIRE(::symlink("/inside", (rootfs / "mnt").c_str()) == 0);

    spec::Spec s = base_spec();
    s.root.readonly = true;
    add_default_mounts(s);
    s.mounts.push_back(make_mount("/data", "none", host.path, {"rbind", "ro", "nosuid"}));
    s.mounts.push_back(make_mount("/mnt/sub", "tmpfs", "tmpfs", {"size=1m"}));
    s.mounts.push_back(make_mount("/etcmnt", "tmpfs", "tmpfs", {"size=1m", "noexec"}));
    s.mounts.push_back(make_mount("/etc/hostfile", "bind", "hostfile", {"bind"}));  // relative to the bundle
    // podman writes "cgroup"; husk mounts cgroup2.
    s.mounts.push_back(make_mount("/sys/fs/cgroup", "cgroup", "cgroup", {"nosuid", "noexec", "nodev", "relatime", "ro"}));
    // /proc/kcore exists only with CONFIG_PROC_KCORE (not on every test kernel); /proc/cmdline always does.
    s.linux->masked_paths = {"/proc/kcore", "/proc/cmdline", "/sys/firmware", "/proc/does-not-exist", "/no/such/dir"};
    s.linux->readonly_paths = {"/proc/sys", "/proc/sysrq-trigger", "/missing"};
    mnt::RootfsPlan plan = prepare(s, rootfs.path, {.no_pivot = false, .terminal = true, .bundle = host.path});

    Report r = run_container(UserNs::no, [&](const Reporter& out) {
        out.step("mounts and pivot", mount_and_pivot(plan));
        int master = ::open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC);
        int unlock = 0;
        if (master < 0 || ::ioctl(master, TIOCSPTLCK, &unlock) != 0) out.put("error", "ptmx");
        int slave = ::ioctl(master, TIOCGPTPEER, O_RDWR | O_NOCTTY | O_CLOEXEC);
        out.step("console", mnt::apply_console(plan, slave));
        out.step("finalize", mnt::apply_finalize(plan));
        char cwd[256] = {};
        out.put("cwd", ::getcwd(cwd, sizeof cwd) ? cwd : "none");
        report_mounts(out);
        for (const char* dev : {"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty",
                                "/dev/console", "/proc/cmdline", "/sys/firmware", "/dev/pts"})
            out.put(std::string("stat:") + dev, describe(dev));
        for (const char* link : {"/dev/fd", "/dev/stdin", "/dev/stdout", "/dev/stderr", "/dev/ptmx", "/dev/core"})
            out.put(std::string("link:") + link, link_of(link));
        for (const char* path : {"/newfile", "/data/new", "/sys/firmware/x", "/proc/sys/kernel/hostname",
                                 "/dev/newfile", "/mnt/sub/x", "/dev/shm/x", "/etc/x"})
            out.put(std::string("write:") + path, try_write(path));
        for (const char* path : {"/no", "/missing", "/proc/does-not-exist"})
            out.put(std::string("stat:") + path, describe(path));
        for (const char* path : {"/etc", "/inside/sub", "/sys/firmware", "/dev", "/proc"})
            out.put(std::string("fs:") + path, fs_type(path));
        out.put("read:/data/hello", content_of("/data/hello"));
        out.put("read:/etc/hostfile", content_of("/etc/hostfile"));
        out.put("read:/proc/cmdline", content_of("/proc/cmdline"));
    });

    INFO("error: " << r["error"]);
    REQUIRE(r["exit"] == "0");
    CHECK(r["cwd"] == "/");
    // What is mounted, and the old root (the host) is gone: no mount point carries the host's rootfs path.
    CHECK(starts_with(r["mount:/proc"], "proc "));
    CHECK(starts_with(r["mount:/dev"], "tmpfs rw,nosuid"));
    CHECK(starts_with(r["mount:/dev/pts"], "devpts rw,nosuid,noexec"));
    CHECK(starts_with(r["mount:/dev/shm"], "tmpfs rw,nosuid,nodev,noexec"));
    CHECK(starts_with(r["mount:/dev/mqueue"], "mqueue rw,nosuid,nodev,noexec"));
    CHECK(starts_with(r["mount:/sys"], "sysfs ro,nosuid,nodev,noexec"));
    CHECK(starts_with(r["mount:/data"], "ext4 ro,nosuid"));
    CHECK(starts_with(r["mount:/etc/hostfile"], "ext4 rw"));
    CHECK(starts_with(r["mount:/inside/sub"], "tmpfs rw"));
    CHECK(starts_with(r["mount:/etc"], "tmpfs rw,noexec"));
    CHECK(starts_with(r["mount:/"], "ext4 ro"));
    CHECK(starts_with(r["mount:/dev/console"], "devpts"));
    CHECK(starts_with(r["mount:/proc/sys"], "proc ro"));
    CHECK(starts_with(r["mount:/proc/cmdline"], "tmpfs"));  // the container's /dev/null (on the /dev tmpfs)
    CHECK(starts_with(r["mount:/sys/firmware"], "tmpfs ro,nosuid,nodev,noexec"));
    CHECK(starts_with(r["mount:/sys/fs/cgroup"], "cgroup2 ro,nosuid,nodev,noexec"));
    // Missing masked and read-only paths are skipped, not created.
    CHECK(starts_with(r["stat:/no"], "missing"));
    CHECK(starts_with(r["stat:/missing"], "missing"));
    CHECK(starts_with(r["stat:/proc/does-not-exist"], "missing"));
    for (const auto& [key, value] : r) CHECK_FALSE((starts_with(key, "mount:") && key.find("husk-mnt") != std::string::npos));
    CHECK(r.count("mount:/etcmnt") == 0);
    CHECK(r.count("mount:/mnt/sub") == 0);

    // Default devices (config-linux.md "Default Devices") and the symlinks.
    CHECK(r["stat:/dev/null"] == "c 1:3 0666");
    CHECK(r["stat:/dev/zero"] == "c 1:5 0666");
    CHECK(r["stat:/dev/full"] == "c 1:7 0666");
    CHECK(r["stat:/dev/random"] == "c 1:8 0666");
    CHECK(r["stat:/dev/urandom"] == "c 1:9 0666");
    CHECK(r["stat:/dev/tty"] == "c 5:0 0666");
    CHECK(starts_with(r["stat:/dev/console"], "c 136:0 "));
    CHECK(r["link:/dev/fd"] == "/proc/self/fd");
    CHECK(r["link:/dev/stdin"] == "/proc/self/fd/0");
    CHECK(r["link:/dev/stdout"] == "/proc/self/fd/1");
    CHECK(r["link:/dev/stderr"] == "/proc/self/fd/2");
    CHECK(r["link:/dev/ptmx"] == "pts/ptmx");
    CHECK(r["link:/dev/core"] == (::access("/proc/kcore", F_OK) == 0 ? "/proc/kcore" : "none"));

    // Masks, read-only paths, the read-only root, the read-only bind.
    CHECK(r["stat:/proc/cmdline"] == "c 1:3 0666");
    CHECK(r["read:/proc/cmdline"].empty());
    CHECK(r["stat:/sys/firmware"] == "d 1777");
    CHECK(r["fs:/sys/firmware"] == "tmpfs");
    CHECK(r["write:/sys/firmware/x"] == "EROFS");
    CHECK(r["write:/proc/sys/kernel/hostname"] == "EROFS");
    CHECK(r["write:/newfile"] == "EROFS");
    CHECK(r["write:/data/new"] == "EROFS");
    CHECK(r["write:/dev/newfile"] == "ok");
    CHECK(r["write:/dev/shm/x"] == "ok");
    CHECK(r["write:/mnt/sub/x"] == "ok");
    CHECK(r["read:/data/hello"] == "hi from the host");
    CHECK(r["read:/etc/hostfile"] == "file content");
    // The symlinks' targets were resolved inside the rootfs.
    CHECK(r["fs:/inside/sub"] == "tmpfs");
    CHECK(r["fs:/etc"] == "tmpfs");

    // Nothing leaked out: the host's mount table is what it was, and nothing was created outside.
    CHECK(host_mountinfo() == before);
    CHECK_FALSE(std::filesystem::exists("/etc/hostfile"));
    CHECK_FALSE(std::filesystem::exists("/inside"));
}

TEST_CASE("the rootfs sequence works inside a user namespace by binding the host's device nodes", "[mnt]") {
    const std::string before = host_mountinfo();
    TempDir rootfs("husk-mnt-userns");
    TempDir host("husk-mnt-userns-host");
    write_text(host / "hello", "hi");

    spec::Spec s = base_spec();
    s.linux->namespaces.push_back({"user", ""});
    add_default_mounts(s);
    s.mounts.push_back(make_mount("/data", "none", host.path, {"rbind", "ro"}));
    s.linux->masked_paths = {"/proc/cmdline", "/sys/firmware"};
    s.linux->readonly_paths = {"/proc/sys"};
    spec::Device fifo;
    fifo.type = "p";
    fifo.path = "/dev/myfifo";
    fifo.file_mode = 0640;
    s.linux->devices.push_back(fifo);
    mnt::RootfsPlan plan = prepare(s, rootfs.path);

    Report r = run_container(UserNs::yes, [&](const Reporter& out) {
        out.step("mounts and pivot", mount_and_pivot(plan));
        out.step("finalize", mnt::apply_finalize(plan));
        report_mounts(out);
        for (const char* dev : {"/dev/null", "/dev/urandom", "/dev/tty", "/dev/myfifo", "/proc/cmdline"})
            out.put(std::string("stat:") + dev, describe(dev));
        out.put("read:/data/hello", content_of("/data/hello"));
        out.put("write:/data/x", try_write("/data/x"));
        out.put("write:/proc/sys/kernel/hostname", try_write("/proc/sys/kernel/hostname"));
        out.put("write:/dev/null", try_write("/dev/null"));
    });

    INFO("error: " << r["error"]);
    REQUIRE(r["exit"] == "0");
    // mknod fails with EPERM in a user namespace: the nodes are the host's, bound.
    CHECK(r.count("mount:/dev/null") == 1);
    CHECK(r["stat:/dev/null"] == "c 1:3 0666");
    CHECK(r["stat:/dev/urandom"] == "c 1:9 0666");
    CHECK(r["stat:/dev/tty"] == "c 5:0 0666");
    CHECK(r["stat:/dev/myfifo"] == "p 0640");  // a fifo needs no privilege: made, not bound
    CHECK(r.count("mount:/dev/myfifo") == 0);
    CHECK(r["write:/dev/null"] == "ok");
    CHECK(r["stat:/proc/cmdline"] == "c 1:3 0666");
    CHECK(r["read:/data/hello"] == "hi");
    CHECK(r["write:/data/x"] == "EROFS");
    CHECK(r["write:/proc/sys/kernel/hostname"] == "EROFS");
    CHECK(starts_with(r["mount:/sys/firmware"], "tmpfs ro"));
    CHECK(host_mountinfo() == before);
}

TEST_CASE("linux.devices are made with their type, numbers, mode and owner", "[mnt]") {
    const std::string before = host_mountinfo();
    TempDir rootfs("husk-mnt-devices");
    spec::Spec s = base_spec();
    add_default_mounts(s);
    s.mounts[1].options.push_back("ro");  // a read-only /dev: read-only only once the devices are in it
    auto device = [](std::string type, std::string path, int major, int minor, std::uint32_t mode, std::uint32_t uid,
                     std::uint32_t gid) {
        spec::Device d;
        d.type = std::move(type);
        d.path = std::move(path);
        d.major = major;
        d.minor = minor;
        d.file_mode = mode;
        d.uid = uid;
        d.gid = gid;
        return d;
    };
    s.linux->devices = {device("c", "/dev/fuse", 10, 229, 0600, 1, 2), device("b", "/dev/loop-test", 7, 200, 0640, 0, 6),
                        device("u", "/dev/net/tun", 10, 200, 0666, 0, 0), device("p", "/dev/fifo", 0, 0, 0620, 3, 4),
                        // Replaces the default /dev/null's mode.
                        device("c", "/dev/null", 1, 3, 0600, 0, 0)};
    mnt::RootfsPlan plan = prepare(s, rootfs.path);

    Report r = run_container(UserNs::no, [&](const Reporter& out) {
        ::umask(077);  // the modes must not depend on the umask
        out.step("mounts and pivot", mount_and_pivot(plan));
        out.step("finalize", mnt::apply_finalize(plan));
        for (const char* dev : {"/dev/fuse", "/dev/loop-test", "/dev/net/tun", "/dev/fifo", "/dev/null", "/dev/zero"}) {
            out.put(std::string("stat:") + dev, describe(dev));
            out.put(std::string("owner:") + dev, owner(dev));
        }
        out.put("write:/dev/x", try_write("/dev/x"));
        out.put("write:/dev/null", try_write("/dev/null"));
    });
    INFO("error: " << r["error"]);
    REQUIRE(r["exit"] == "0");
    CHECK(r["stat:/dev/fuse"] == "c 10:229 0600");
    CHECK(r["owner:/dev/fuse"] == "1:2");
    CHECK(r["stat:/dev/loop-test"] == "b 7:200 0640");
    CHECK(r["owner:/dev/loop-test"] == "0:6");
    CHECK(r["stat:/dev/net/tun"] == "c 10:200 0666");
    CHECK(r["stat:/dev/fifo"] == "p 0620");
    CHECK(r["owner:/dev/fifo"] == "3:4");
    CHECK(r["write:/dev/x"] == "EROFS");
    CHECK(r["write:/dev/null"] == "ok");  // a device node on a read-only mount is still writable
    CHECK(r["stat:/dev/null"] == "c 1:3 0600");
    CHECK(r["stat:/dev/zero"] == "c 1:5 0666");
    CHECK(host_mountinfo() == before);
}

TEST_CASE("a fake /dev/null in the rootfs is never used to mask a path", "[mnt]") {
    const std::string before = host_mountinfo();
    TempDir rootfs("husk-mnt-fakenull");
    // No /dev tmpfs: the rootfs's own /dev stays, with a regular file as /dev/null and a symlink for zero.
    std::filesystem::create_directories(rootfs / "dev");
    std::filesystem::create_directories(rootfs / "etc");
    write_text(rootfs / "dev/null", "not a device");
    write_text(rootfs / "etc/secret", "secret");
    write_text(rootfs / "etc/other", "other");
    spec::Spec s = base_spec();
    s.mounts.push_back(make_mount("/proc", "proc", "proc", {}));
    s.linux->masked_paths = {"/etc/secret", "/etc/other"};

    SECTION("the host's verified null device is used instead") {
        mnt::RootfsPlan plan = prepare(s, rootfs.path);
        REQUIRE(plan.host_null);
        Report r = run_container(UserNs::no, [&](const Reporter& out) {
            out.step("mounts and pivot", mount_and_pivot(plan));
            out.step("finalize", mnt::apply_finalize(plan));
            for (const char* path : {"/dev/null", "/etc/secret", "/etc/other"})
                out.put(std::string("stat:") + path, describe(path));
            out.put("read:/etc/secret", content_of("/etc/secret"));
        });
        INFO("error: " << r["error"]);
        REQUIRE(r["exit"] == "0");
        CHECK(r["stat:/dev/null"] == "f 0644");  // kept, as runc keeps an existing node
        CHECK(r["stat:/etc/secret"] == "c 1:3 0666");
        CHECK(r["stat:/etc/other"] == "c 1:3 0666");
        CHECK(r["read:/etc/secret"].empty());
    }
    SECTION("without a host null device, masking fails with a clear error") {
        mnt::RootfsPlan plan = prepare(s, rootfs.path);
        plan.host_null.reset();
        Report r = run_container(UserNs::no, [&](const Reporter& out) {
            out.step("mounts and pivot", mount_and_pivot(plan));
            out.step("finalize", mnt::apply_finalize(plan));
        });
        CHECK(r["exit"] == "3");
        CHECK(r["error"].find("is not the null device") != std::string::npos);
    }
    SECTION("a /dev/null symlink to a regular file is refused the same way") {
        std::filesystem::remove(rootfs / "dev/null");
        REQUIRE(::symlink("/etc/other", (rootfs / "dev/null").c_str()) == 0);
        mnt::RootfsPlan plan = prepare(s, rootfs.path);
        plan.host_null.reset();
        Report r = run_container(UserNs::no, [&](const Reporter& out) {
            out.step("mounts and pivot", mount_and_pivot(plan));
            out.step("finalize", mnt::apply_finalize(plan));
        });
        CHECK(r["exit"] == "3");
        CHECK(r["error"].find("is not the null device") != std::string::npos);
    }
    CHECK(host_mountinfo() == before);
}

// podman mounts every tmpfs with "tmpcopyup" (--tmpfs; /tmp, /var/tmp and /run of --read-only): the tmpfs
// starts with a copy of the directory it covers. A symlink in the image is copied, never followed.
TEST_CASE("tmpcopyup gives the tmpfs a copy of the directory it covers, types, modes and owners kept; a tmpfs without mode= takes the directory's mode", "[mnt]") {
    const std::string before = host_mountinfo();
    TempDir rootfs("husk-mnt-copyup");
    std::filesystem::create_directories(rootfs / "run/sub/deeper");
    write_text(rootfs / "run/file", "image content");
    REQUIRE(::chmod((rootfs / "run/file").c_str(), 04750) == 0);
    REQUIRE(::chown((rootfs / "run/file").c_str(), 1000, 1001) == 0);
    REQUIRE(::chmod((rootfs / "run/file").c_str(), 04750) == 0);  // chown cleared set-uid
    write_text(rootfs / "run/sub/deeper/leaf", "leaf");
    REQUIRE(::chmod((rootfs / "run/sub").c_str(), 0555) == 0);
    REQUIRE(::symlink("/etc/shadow", (rootfs / "run/link").c_str()) == 0);
    REQUIRE(::mkfifo((rootfs / "run/fifo").c_str(), 0600) == 0);
    REQUIRE(::chmod((rootfs / "run/fifo").c_str(), 0620) == 0);  // past the umask

    spec::Spec s = base_spec();
    add_default_mounts(s);
    s.mounts.push_back(make_mount("/run", "tmpfs", "tmpfs", {"nosuid", "tmpcopyup"}));
    // Without "mode=" a tmpfs takes the covered directory's mode (as runc), with it the one given.
    std::filesystem::create_directories(rootfs / "plain");
    std::filesystem::create_directories(rootfs / "given");
    REQUIRE(::chmod((rootfs / "plain").c_str(), 0750) == 0);
    s.mounts.push_back(make_mount("/plain", "tmpfs", "tmpfs", {"size=1m"}));
    s.mounts.push_back(make_mount("/given", "tmpfs", "tmpfs", {"mode=1777"}));
    mnt::RootfsPlan plan = prepare(s, rootfs.path);
    Report r = run_container(UserNs::no, [&](const Reporter& out) {
        out.step("mounts and pivot", mount_and_pivot(plan));
        out.put("fs", fs_type("/run"));
        for (const char* path : {"/run", "/run/file", "/run/sub", "/run/sub/deeper", "/run/fifo", "/run/link",
                                 "/plain", "/given"})
            out.put(std::string("stat:") + path, describe(path));
        out.put("owner", owner("/run/file"));
        out.put("read:file", content_of("/run/file"));
        out.put("read:leaf", content_of("/run/sub/deeper/leaf"));
        out.put("link", link_of("/run/link"));
        out.put("write", try_write("/run/new"));
    });
    INFO("error: " << r["error"]);
    REQUIRE(r["exit"] == "0");
    CHECK(r["fs"] == "tmpfs");
    CHECK(r["stat:/run"] == "d 0755");
    CHECK(r["stat:/plain"] == "d 0750");
    CHECK(r["stat:/given"] == "d 1777");
    CHECK(r["stat:/run/file"] == "f 4750");
    CHECK(r["owner"] == "1000:1001");
    CHECK(r["read:file"] == "image content");
    CHECK(r["stat:/run/sub"] == "d 0555");
    CHECK(r["read:leaf"] == "leaf");
    CHECK(r["stat:/run/fifo"] == "p 0620");
    CHECK(r["link"] == "/etc/shadow");
    CHECK(r["write"] == "ok");
    // The copy is the tmpfs's: the image's directory is untouched.
    CHECK_FALSE(std::filesystem::exists(rootfs / "run/new"));
    REQUIRE(::chmod((rootfs / "run/sub").c_str(), 0755) == 0);
    CHECK(host_mountinfo() == before);
}
