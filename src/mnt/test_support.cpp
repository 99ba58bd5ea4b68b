#include "mnt/test_support.hpp"

#include <fcntl.h>
#include <linux/magic.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "base/fs.hpp"

namespace husk::mnt::testing {

std::string host_mountinfo() {
    auto content = husk::read_file("/proc/self/mountinfo");
    REQUIRE(content);
    return *content;
}

TempDir::TempDir(const char* prefix) {
    std::string pattern = std::string("/tmp/") + prefix + "-XXXXXX";
    REQUIRE(::mkdtemp(pattern.data()) != nullptr);
    path = pattern;
}

TempDir::~TempDir() {
    auto mountinfo = husk::read_file("/proc/self/mountinfo");
    if (!mountinfo || mountinfo->find(" " + path) != std::string::npos) return;
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
}

void write_text(const std::string& path, const std::string& text) {
    std::ofstream out(path);
    out << text;
    REQUIRE(out.good());
}

void Reporter::put(const std::string& key, const std::string& value) const {
    std::string line = key + "=" + value;
    for (char& c : line)
        if (c == '\n') c = '|';
    line += '\n';
    (void)::write(fd, line.data(), line.size());
}

void Reporter::step(const char* name, const Result<void>& result) const {
    if (result) return;
    put("error", std::string(name) + ": " + result.error().message());
    ::_exit(3);
}

Report run_container(UserNs userns, const std::function<void(const Reporter&)>& body) {
    int report[2], ready[2], go[2];
    REQUIRE(::pipe2(report, O_CLOEXEC) == 0);
    REQUIRE(::pipe2(ready, O_CLOEXEC) == 0);
    REQUIRE(::pipe2(go, O_CLOEXEC) == 0);
    pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        ::close(report[0]);
        if (userns == UserNs::yes) {
            if (::unshare(CLONE_NEWUSER) != 0) ::_exit(10);
            char byte = 'u';
            if (::write(ready[1], &byte, 1) != 1 || ::read(go[0], &byte, 1) != 1) ::_exit(11);
        }
        if (::unshare(CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWNET) != 0) ::_exit(12);
        pid_t inner = ::fork();
        if (inner < 0) ::_exit(13);
        if (inner == 0) {
            body(Reporter{report[1]});
            ::_exit(0);
        }
        int status = 0;
        ::waitpid(inner, &status, 0);
        ::_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 100 + WTERMSIG(status));
    }
    ::close(report[1]);
    ::close(ready[1]);
    ::close(go[0]);
    if (userns == UserNs::yes) {
        char byte;
        REQUIRE(::read(ready[0], &byte, 1) == 1);
        // The whole id range maps to itself: the child is root in its namespace, but without any privilege
        // over the host's devices (mknod fails with EPERM there).
        std::string proc = "/proc/" + std::to_string(pid);
        REQUIRE(husk::write_existing_file(proc + "/uid_map", "0 0 4294967295\n"));
        REQUIRE(husk::write_existing_file(proc + "/gid_map", "0 0 4294967295\n"));
        REQUIRE(::write(go[1], &byte, 1) == 1);
    }
    std::string output;
    char buffer[4096];
    for (ssize_t n; (n = ::read(report[0], buffer, sizeof buffer)) > 0;) output.append(buffer, static_cast<std::size_t>(n));
    int status = 0;
    ::waitpid(pid, &status, 0);
    ::close(report[0]);
    ::close(ready[0]);
    ::close(go[1]);

    Report result;
    std::istringstream lines(output);
    for (std::string line; std::getline(lines, line);) {
        auto equals = line.find('=');
        if (equals != std::string::npos) result[line.substr(0, equals)] = line.substr(equals + 1);
    }
    result["exit"] = std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : 100 + WTERMSIG(status));
    return result;
}

std::string describe(const char* path) {
    struct stat st {};
    if (::lstat(path, &st) != 0) return std::string("missing ") + std::strerror(errno);
    std::string permissions = std::to_string((st.st_mode >> 9) & 7) + std::to_string((st.st_mode >> 6) & 7) +
                              std::to_string((st.st_mode >> 3) & 7) + std::to_string(st.st_mode & 7);
    std::string numbers = std::to_string(major(st.st_rdev)) + ":" + std::to_string(minor(st.st_rdev));
    switch (st.st_mode & S_IFMT) {
    case S_IFCHR: return "c " + numbers + " " + permissions;
    case S_IFBLK: return "b " + numbers + " " + permissions;
    case S_IFIFO: return "p " + permissions;
    case S_IFDIR: return "d " + permissions;
    case S_IFLNK: return "l";
    default: return "f " + permissions;
    }
}

std::string owner(const char* path) {
    struct stat st {};
    if (::lstat(path, &st) != 0) return "missing";
    return std::to_string(st.st_uid) + ":" + std::to_string(st.st_gid);
}

std::string try_write(const char* path) {
    int fd = ::open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) return strerrorname_np(errno);
    ::close(fd);
    return "ok";
}

std::string link_of(const char* path) {
    char buffer[256];
    ssize_t n = ::readlink(path, buffer, sizeof buffer);
    return n < 0 ? std::string("none") : std::string(buffer, static_cast<std::size_t>(n));
}

std::string fs_type(const char* path) {
    struct statfs fs {};
    if (::statfs(path, &fs) != 0) return "missing";
    switch (fs.f_type) {
    case TMPFS_MAGIC: return "tmpfs";
    case PROC_SUPER_MAGIC: return "proc";
    case SYSFS_MAGIC: return "sysfs";
    case DEVPTS_SUPER_MAGIC: return "devpts";
    case EXT4_SUPER_MAGIC: return "ext4";
    default: return std::to_string(fs.f_type);
    }
}

// Any file: a masked path is the null device, which read_file (regular files only) refuses.
std::string content_of(const char* path) {
    auto fd = husk::open_fd(path, O_RDONLY);
    auto content = fd ? husk::read_fd(fd->get()) : husk::Result<std::string>(std::unexpected(fd.error()));
    return content ? *content : "unreadable";
}

void report_mounts(const Reporter& out) {
    std::istringstream lines(content_of("/proc/self/mountinfo"));
    for (std::string line; std::getline(lines, line);) {
        std::istringstream fields(line);
        std::string id, parent, numbers, root, point, options, field, optional;
        fields >> id >> parent >> numbers >> root >> point >> options;
        while (fields >> field && field != "-") optional += field + " ";
        std::string type;
        fields >> type;
        out.put("mount:" + point, type + " " + options + " " + optional);
    }
}

spec::Mount make_mount(std::string destination, std::string type, std::string source,
                       std::vector<std::string> options) {
    spec::Mount m;
    m.destination = std::move(destination);
    m.type = std::move(type);
    m.source = std::move(source);
    m.options = std::move(options);
    return m;
}

spec::Spec base_spec() {
    spec::Spec s;
    s.linux.emplace();
    s.linux->namespaces = {{"mount", ""}, {"pid", ""}};
    return s;
}

void add_default_mounts(spec::Spec& s) {
    s.mounts.push_back(make_mount("/proc", "proc", "proc", {}));
    s.mounts.push_back(make_mount("/dev", "tmpfs", "tmpfs", {"nosuid", "strictatime", "mode=755", "size=65536k"}));
    s.mounts.push_back(make_mount("/dev/pts", "devpts", "devpts",
                                  {"nosuid", "noexec", "newinstance", "ptmxmode=0666", "mode=0620", "gid=5"}));
    s.mounts.push_back(make_mount("/dev/shm", "tmpfs", "shm", {"nosuid", "noexec", "nodev", "mode=1777", "size=65536k"}));
    s.mounts.push_back(make_mount("/dev/mqueue", "mqueue", "mqueue", {"nosuid", "noexec", "nodev"}));
    s.mounts.push_back(make_mount("/sys", "sysfs", "sysfs", {"nosuid", "noexec", "nodev", "ro"}));
}

RootfsPlan prepare(const spec::Spec& s, const std::string& rootfs, RootfsOptions options) {
    auto plan = prepare_rootfs(s, rootfs, std::move(options));
    if (!plan) FAIL(plan.error().message());
    return std::move(*plan);
}

bool starts_with(const std::string& text, const std::string& prefix) { return text.rfind(prefix, 0) == 0; }

Result<void> mount_and_pivot(const RootfsPlan& plan) noexcept {
    UniqueFd held = TRY(hold_rootfs(plan));
    UniqueFd root = TRY(apply_mounts(plan, held.get()));
    return apply_pivot(plan, root.get());
}

Result<void> hold_and_mount(const RootfsPlan& plan) noexcept {
    UniqueFd held = TRY(hold_rootfs(plan));
    TRY(apply_mounts(plan, held.get()));
    return {};
}

}  // namespace husk::mnt::testing
