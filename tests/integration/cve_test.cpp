// Regression tests for the runtime CVE classes (docs/security.md, "Runtime CVE classes"), each written so that a naive
// runtime fails it.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <set>

#include "exec_support.hpp"
#include "harness.hpp"
#include "monitor_support.hpp"

using namespace husk::test;
using Catch::Matchers::Contains;

namespace {

// An O_PATH fd to a host directory (what CVE-2024-21626 leaked: a handle on the host's cgroup tree).
struct HostDirFd {
    int fd;
    explicit HostDirFd(const std::string& path) : fd(open(path.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC)) {}
    ~HostDirFd() { close(fd); }
};

std::string dump_path(const std::string& path) { return read_file(path); }

}  // namespace

// CVE-2019-5736: a container that can see a runtime process (here: without a pid namespace, its parent) must
// not be able to write the runtime's binary through /proc/PID/exe. While the process runs the kernel says
// ETXTBSY anyway; the attack waits until it has gone and reopens an O_PATH fd. husk's processes run from a
// read-only mount of the binary, so the reopen can never succeed.
TEST_CASE("the husk process a container can see runs from a read-only mount of its binary (CVE-2019-5736)",
          "[integration][cve]") {
    std::string mode = GENERATE(std::string("run"), std::string("create"));
    Sandbox sb;
    Bundle b = with_args(sb, {"/probe", "exe-of-parent"});
    share_host_pid_namespace(b.config);
    // The strongest attacker: without CAP_SYS_PTRACE, /proc/PID/exe of a husk process is EACCES already.
    add_capability(b.config, "CAP_SYS_PTRACE");
    std::string id = sb.id("exe");
    Output out;
    if (mode == "run") {
        out = sb.run(b, id);
        require_ok(out);
    } else {
        out = sb.create(b, id);
        require_ok(out);
        require_ok(sb.husk({"start", id}));
        wait_for_exit(sb, id);
        require_ok(sb.husk({"delete", id}));
    }
    Json r = last_json_line(out.current_out());
    INFO(mode << ": " << r.dump());
    CHECK(r["writeErrno"].num() != 0);
    CHECK(r["readonlyMount"].boolean());
    check_nothing_left(sb);
}

// The 2019 exploit went through `runc exec`: the process exec'd into the container opened /proc/<runc>/exe of
// the runtime that was still waiting for it. `husk exec` in the foreground is exactly that process's parent.
TEST_CASE("husk exec, seen by the process it started, runs from a read-only mount of its binary (CVE-2019-5736)",
          "[integration][cve][exec]") {
    Sandbox sb;
    Bundle b = with_args(sb, {"/probe", "sleep", "120"});
    share_host_pid_namespace(b.config);
    add_capability(b.config, "CAP_SYS_PTRACE");
    std::string id = sb.id("exec-exe");
    create_and_start(sb, b, id);
    Output out = sb.husk({"exec", id, "/probe", "exe-of-parent"});
    require_ok(out);
    Json r = last_json_line(out.out);
    INFO(r.dump());
    CHECK(r["writeErrno"].num() != 0);
    CHECK(r["readonlyMount"].boolean());
    stop_and_delete(sb, id);
}

// CVE-2024-21626: fds of the runtime (or of its caller) open in init, and a cwd reaching the host through one.
TEST_CASE("an O_PATH fd to a host directory does not reach the container", "[integration][cve]") {
    Sandbox sb;
    Bundle b = sb.bundle();
    HostDirFd host(sb.dir());
    REQUIRE(host.fd >= 0);
    SpawnOptions with_fds;
    with_fds.extra_fds = {host.fd, host.fd};  // fds 3 and 4 of husk
    Json r = sb.run_probe(b, {"--preserve-fds", "1"}, with_fds);
    std::set<long long> fds;
    for (const Json& fd : r["fds"].items()) fds.insert(fd["fd"].num());
    CHECK(fds == std::set<long long>{0, 1, 2, 3});  // 3 was passed on purpose, 4 was not
}

// --preserve-fds N with a hole in 3..2+N: husk's own fds fill the lowest free numbers, so a preserved number
// the caller never opened would name one of them (init's root and pidfd were seen there in exec's process).
TEST_CASE("--preserve-fds with an fd the caller did not open is refused", "[integration][cve]") {
    Sandbox sb;
    Bundle b = sb.bundle();
    std::string id = start_sleeper(sb, b, "holes");
    HostDirFd host(sb.dir());
    REQUIRE(host.fd >= 0);
    SpawnOptions with_fds;
    with_fds.extra_fds = {host.fd};  // fd 3 of husk; 4 and up are not the caller's
    Output exec = sb.husk({"exec", "--preserve-fds", "4", id, "/probe", "report"}, with_fds);
    INFO(exec.describe());
    CHECK(exec.exit_code == 255);
    CHECK_THAT(exec.err, Contains("--preserve-fds 4: fd 4 is not open"));
    stop_and_delete(sb, id);

    Bundle created = with_args(sb, {"/probe", "report"});
    std::string second = sb.id("holes-create");
    Output out = sb.create(created, second, {"--preserve-fds", "3"}, with_fds);
    INFO(out.describe());
    CHECK(out.exit_code == 1);
    CHECK_THAT(out.err, Contains("--preserve-fds 3: fd 4 is not open"));
    check_nothing_left(sb);
}

TEST_CASE("a process.cwd that leaves the container through /proc/self/fd is refused", "[integration][cve]") {
    int n = GENERATE(range(3, 10));
    Sandbox sb;
    Bundle b = with_args(sb, {"/probe", "report"});
    b.config["process"]["cwd"] = "/proc/self/fd/" + std::to_string(n);
    HostDirFd host(sb.dir());
    SpawnOptions with_fds;
    with_fds.extra_fds = {host.fd};
    std::string id = sb.id("cwd");
    Output out = sb.create(b, id, {"--preserve-fds", "1"}, with_fds);
    INFO("cwd /proc/self/fd/" << n << ": " << out.describe());
    // Whatever fd n is in init at that moment (a host directory, a socket, nothing), no workload may start
    // there: create fails at the cwd step.
    CHECK(out.exit_code == 1);
    CHECK_THAT(out.err, Contains("cwd"));
    check_nothing_left(sb);
}

// CVE-2021-30465 / CVE-2025-31133 class: mount destinations and /dev/null are resolved inside the rootfs.
TEST_CASE("a mount destination that is a symlink out of the rootfs lands inside the rootfs", "[integration][cve]") {
    Sandbox sb;
    Bundle b = with_args(sb, {"/probe", "read", "/escape/marker"});
    std::string source = sb.dir() + "/source";
    std::string outside = sb.dir() + "/outside";
    REQUIRE(mkdir(source.c_str(), 0755) == 0);
    REQUIRE(mkdir(outside.c_str(), 0755) == 0);
    write_file(source + "/marker", "inside\n");
    // An absolute symlink naming a host path: a runtime that follows it on the host mounts over `outside`,
    // and the container finds the same path inside its rootfs empty.
    REQUIRE(symlink(outside.c_str(), (b.rootfs() + "/escape").c_str()) == 0);
    Output made = sb.command({"/bin/mkdir", "-p", b.rootfs() + outside});
    REQUIRE(made.exit_code == 0);
    b.config["mounts"].push_back(Json::object({{"destination", "/escape"}, {"type", "bind"}, {"source", source},
                                               {"options", Json::strings({"bind", "ro"})}}));
    Json r = sb.run_probe(b);
    INFO(r.dump());
    CHECK(r["errno"].num() == 0);
    CHECK(r["content"].str() == "inside\n");
    CHECK(access((outside + "/marker").c_str(), F_OK) != 0);
    check_nothing_left(sb);
}

TEST_CASE("a mount destination that is a dangling symlink is refused, naming it", "[integration][cve]") {
    Sandbox sb;
    Bundle b = with_args(sb, {"/bin/true"});
    std::string outside = sb.dir() + "/outside";
    REQUIRE(mkdir(outside.c_str(), 0755) == 0);
    REQUIRE(symlink(outside.c_str(), (b.rootfs() + "/escape").c_str()) == 0);
    b.config["mounts"].push_back(Json::object({{"destination", "/escape"}, {"type", "tmpfs"}, {"source", "tmpfs"}}));
    std::string id = sb.id("dangling");
    Output out = sb.run(b, id);
    INFO(out.describe());
    CHECK(out.exit_code == 1);
    CHECK_THAT(out.err, Contains("\"/escape\""));
    CHECK(access((b.rootfs() + outside).c_str(), F_OK) != 0);
    check_nothing_left(sb);
}

TEST_CASE("masking never uses a /dev/null that is not the null device", "[integration][cve]") {
    std::string kind = GENERATE(std::string("symlink"), std::string("file"));
    Sandbox sb;
    Bundle b = with_args(sb, {"/probe", "stat", "/proc/cmdline"});
    // No /dev tmpfs: the rootfs's own /dev is used, and its null is the attacker's.
    Json mounts = Json::array();
    for (const Json& m : b.config["mounts"].items())
        if (m["destination"].str().rfind("/dev", 0) != 0) mounts.push_back(m);
    b.config["mounts"] = mounts;
    b.config["linux"]["maskedPaths"] = Json::strings({"/proc/cmdline"});
    std::string null = b.rootfs() + "/dev/null";
    unlink(null.c_str());
    if (kind == "symlink") REQUIRE(symlink("/proc/sys/kernel/core_pattern", null.c_str()) == 0);
    else write_file(null, "not a device\n");
    std::string core_pattern = dump_path("/proc/sys/kernel/core_pattern");
    std::string id = sb.id("null");
    Output out = sb.run(b, id);
    INFO(kind << ": " << out.describe());
    REQUIRE(out.exit_code == 0);
    // Masked with the real null device, whatever the rootfs held.
    Json r = last_json_line(out.out);
    CHECK(r["type"].str() == "c");
    CHECK(r["major"].num() == 1);
    CHECK(r["minor"].num() == 3);
    CHECK(dump_path("/proc/sys/kernel/core_pattern") == core_pattern);
    check_nothing_left(sb);
}
