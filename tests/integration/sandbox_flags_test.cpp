// `husk sandbox` flags beyond the defaults: cancel and --die-with-parent (the verdict still written, nothing
// left), Landlock, rlimits (and SIGXFSZ, as the verdict tells it), --seccomp FILE, the environment.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <signal.h>
#include <sys/statvfs.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "harness.hpp"
#include "monitor_support.hpp"
#include "sandbox_support.hpp"
#include "terminal_support.hpp"

using namespace husk::test;
using Catch::Matchers::Contains;

namespace {

Json wait_for_verdict(const std::string& path) {
    auto deadline = std::chrono::steady_clock::now() + Ms(20000);
    while (read_file(path).empty() && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(Ms(10));
    std::string text = read_file(path);
    INFO("verdict: " << text);
    REQUIRE(lines(text).size() == 1);
    return Json::parse(text);
}

// `husk state ID` until it says running: the sandbox has no --pid-file, and its state appears only once
// create got that far.
void wait_until_running(Sandbox& sb, const std::string& id) {
    auto deadline = std::chrono::steady_clock::now() + Ms(20000);
    while (std::chrono::steady_clock::now() < deadline) {
        Output state = sb.husk({"state", id});
        if (state.exit_code == 0 && Json::parse(state.out)["status"].str() == "running") return;
        std::this_thread::sleep_for(Ms(20));
    }
    FAIL("sandbox " << id << " did not reach running");
}

}  // namespace

TEST_CASE("SIGTERM to husk sandbox cancels it: reason killed, the verdict written, nothing left",
          "[integration][sandbox]") {
    Sandbox sb;
    const std::string id = sb.id("cancel"), verdict = sb.dir() + "/verdict.json";
    Process husk = sb.spawn_husk(sandbox_args(id, {"--kill-grace", "1s", "--verdict", verdict}, {"sleep", "60"}));
    wait_until_running(sb, id);
    // husk itself runs from a read-only mount of its binary, as run does (CVE-2019-5736).
    {
        int exe = ::open(("/proc/" + std::to_string(husk.pid()) + "/exe").c_str(), O_RDONLY | O_CLOEXEC);
        REQUIRE(exe >= 0);
        struct statvfs fs {};
        CHECK(::fstatvfs(exe, &fs) == 0);
        CHECK((fs.f_flag & ST_RDONLY) != 0);
        ::close(exe);
    }
    REQUIRE(::kill(husk.pid(), SIGTERM) == 0);
    Output out = husk.wait();
    INFO(out.describe());
    Json v = wait_for_verdict(verdict);
    CHECK(v["exit"]["reason"].str() == "killed");
    CHECK(v["status"].num() == out.exit_code);
    CHECK(out.exit_code != 0);
    check_nothing_left(sb);
}

TEST_CASE("husk sandbox --die-with-parent: the caller SIGKILLed, the sandbox is killed and deleted, the verdict says so",
          "[integration][sandbox]") {
    Sandbox sb;
    const std::string id = sb.id("orphan"), verdict = sb.dir() + "/verdict.json", husk_pid_file = sb.dir() + "/husk.pid";
    std::vector<std::string> caller = {"/bin/sh", "-c", "\"$@\" & echo $! > " + husk_pid_file + "; wait", "caller",
                                       paths().husk, "--root", sb.root()};
    for (std::string& arg : sandbox_args(id, {"--die-with-parent", "--verdict", verdict}, {"sleep", "60"}))
        caller.push_back(std::move(arg));
    Process shell = sb.spawn_command(caller);
    wait_until_running(sb, id);
    pid_t husk = static_cast<pid_t>(std::stol(read_file(husk_pid_file)));
    sb.track_pid(husk);
    const pid_t shell_pid = shell.pid();
    REQUIRE(::kill(shell_pid, SIGKILL) == 0);
    shell.wait();
    Json v = wait_for_verdict(verdict);
    auto deadline = std::chrono::steady_clock::now() + Ms(20000);
    while (process_alive(husk) && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(Ms(10));
    reap_if_ours(husk);
    CHECK(v["exit"]["reason"].str() == "killed");
    CHECK_THAT(v["exit"]["detail"].str(), Contains("the caller (pid " + std::to_string(shell_pid) + ") died"));
    CHECK_FALSE(process_alive(husk));
    check_nothing_left(sb);
}

TEST_CASE("husk sandbox --landlock-read/--landlock-write restrict files to what they name and the system view",
          "[integration][sandbox]") {
    Sandbox sb;
    const std::string data = sb.dir() + "/data";
    REQUIRE(::mkdir(data.c_str(), 0755) == 0);
    write_file(data + "/f", "data\n");
    const std::string script = "cat /data/f; ls /tmp >/dev/null 2>&1 || echo tmp-denied; echo y > /dev/shm/f && echo shm-ok";
    Output run = sb.husk(sandbox_args(sb.id("landlock"),
                                      {"--bind", data + ":/data", "--landlock-read", "/data", "--landlock-write", "/dev/shm"},
                                      {"sh", "-c", script}));
    INFO(run.describe());
    if (run.err.find("cannot enforce: truncate (needs ABI 3)") != std::string::npos) {
        // Debian 12's own kernel (the VM's) has ABI 2: the sandbox refuses rather than run less confined.
        CHECK(run.exit_code == 2);  // refused before anything existed
        WARN("Landlock ABI below 3: refused as it must be, the rules not tried");
        check_nothing_left(sb);
        return;
    }
    std::vector<std::string> printed = lines(run.out);
    CHECK(printed == std::vector<std::string>{"data", "tmp-denied", "shm-ok"});
    check_nothing_left(sb);
}

TEST_CASE("husk sandbox --nofile and --fsize set the program's rlimits", "[integration][sandbox]") {
    Sandbox sb;
    Output run = sb.husk(sandbox_args(sb.id("rlimits"), {"--nofile", "64", "--fsize", "1m"},
                                      {"sh", "-c", "ulimit -n; ulimit -f; grep -E '^Max (open files|file size)' /proc/self/limits"}));
    INFO(run.describe());
    REQUIRE(run.exit_code == 0);
    std::vector<std::string> printed = lines(run.out);
    REQUIRE(printed.size() == 4);
    CHECK(printed[0] == "64");
    CHECK(printed[1] == "2048");  // dash counts 512-byte blocks
    check_nothing_left(sb);
}

TEST_CASE("a program that --fsize ends with SIGXFSZ is signaled, and the detail says what SIGXFSZ is sent for",
          "[integration][sandbox][factors]") {
    Sandbox sb;
    const std::string path = sb.dir() + "/fsize.json";
    // dd itself writes past the 1 KiB: the kernel sends it SIGXFSZ, whose default action ends it.
    Output run = sb.husk(sandbox_args(sb.id("fsize"), {"--fsize", "1k", "--verdict", path},
                                      {"dd", "if=/dev/zero", "of=/tmp/f", "bs=4k", "count=1"}));
    INFO(run.describe());
    Json v = Json::parse(read_file(path));
    INFO(v.dump());
    CHECK(run.exit_code == 128 + SIGXFSZ);
    CHECK(v["exit"]["reason"].str() == "signaled");
    CHECK(v["exit"]["signal"].num() == SIGXFSZ);
    CHECK_THAT(v["exit"]["detail"].str(), Contains("the kernel sends it to a process writing past its RLIMIT_FSIZE"));
    // A shell between them sees its child die of it and exits 128 + 25 itself: husk sees only that code.
    Output shell = sb.husk(sandbox_args(sb.id("fsize-sh"), {"--fsize", "1k", "--verdict", path},
                                        {"sh", "-c", "dd if=/dev/zero of=/tmp/f bs=4k count=1 2>/dev/null; exit $?"}));
    INFO(shell.describe());
    Json sv = Json::parse(read_file(path));
    CHECK(sv["exit"]["reason"].str() == "exited");
    CHECK(sv["exit"]["code"].num() == 128 + SIGXFSZ);
    check_nothing_left(sb);
}

TEST_CASE("husk sandbox --seccomp FILE uses that linux.seccomp object instead of husk's profile",
          "[integration][sandbox]") {
    Sandbox sb;
    const std::string profile = sb.dir() + "/profile.json";
    write_file(profile, R"({"defaultAction":"SCMP_ACT_ALLOW","syscalls":[{"names":["getpid"],"action":"SCMP_ACT_ERRNO","errnoRet":38}]})");
    Output run = sb.husk(sandbox_args(sb.id("seccomp-file"), {"--seccomp", profile, "--bind", paths().probe + ":/probe"},
                                      {"sh", "-c", "/probe syscall getpid; /probe syscall keyctl"}));
    INFO(run.describe());
    REQUIRE(run.exit_code == 0);
    std::vector<std::string> printed = lines(run.out);
    REQUIRE(printed.size() == 2);
    CHECK(Json::parse(printed[0])["errno"].num() == 38);
    CHECK(Json::parse(printed[1])["errno"].num() != EPERM);  // husk's profile is not in force
    Output not_object = sb.husk(sandbox_args(sb.id("seccomp-bad"), {"--seccomp", sb.dir() + "/no-such"}, {"true"}));
    CHECK(not_object.exit_code == 2);
    check_nothing_left(sb);
}

TEST_CASE("husk sandbox never passes on the caller's environment; --env adds, --clear-env empties",
          "[integration][sandbox]") {
    Sandbox sb;
    SpawnOptions secret;
    secret.env = {"HUSK_TEST_SECRET=leak"};
    Output run = sb.husk(sandbox_args(sb.id("env"), {"--env", "A=1", "--env", "A=2"}, {"sh", "-c", "env | sort"}), secret);
    INFO(run.describe());
    REQUIRE(run.exit_code == 0);
    CHECK(run.out.find("HUSK_TEST_SECRET") == std::string::npos);
    CHECK_THAT(run.out, Contains("A=2\n"));
    CHECK(run.out.find("A=1") == std::string::npos);
    CHECK_THAT(run.out, Contains("PATH=/usr/local/bin:/usr/bin:/bin"));
    Output cleared = sb.husk(sandbox_args(sb.id("clear"), {"--clear-env", "--env", "B=1"}, {"/usr/bin/env"}));
    INFO(cleared.describe());
    CHECK(lines(cleared.out) == std::vector<std::string>{"B=1"});
    check_nothing_left(sb);
}

// CVE-2017-5226 (bubblewrap): a sandboxed program given the caller's terminal pushed keystrokes into the
// caller's shell with TIOCSTI. In husk's sandbox the program is in a session of its own (init's setsid), so
// the terminal it inherited is not its controlling terminal and, without CAP_SYS_ADMIN, TIOCSTI fails.
TEST_CASE("husk sandbox's program cannot push input into the caller's terminal (TIOCSTI)", "[integration][sandbox]") {
    if (::access("/usr/bin/python3", X_OK) != 0) {
        WARN("skipped: the host has no /usr/bin/python3");
        return;
    }
    Sandbox sb;
    TestTerminal terminal;
    SpawnOptions on_terminal;
    on_terminal.terminal = terminal.slave();
    const std::string script =
        "import fcntl, termios\n"
        "try:\n"
        "    fcntl.ioctl(0, termios.TIOCSTI, b'x')\n"
        "    print('pushed')\n"
        "except OSError as e:\n"
        "    print('refused', e.errno)\n";
    Process husk = sb.spawn_husk(sandbox_args(sb.id("tiocsti"), {}, {"python3", "-c", script}), on_terminal);
    terminal.close_slave();
    std::string seen = terminal.rest();
    Output out = husk.wait();
    INFO(out.describe() << " terminal: " << seen);
    CHECK(out.exit_code == 0);
    CHECK_THAT(seen, Contains("refused"));
    CHECK(seen.find("pushed") == std::string::npos);
    check_nothing_left(sb);
}

TEST_CASE("husk sandbox runs with a --root and a --rootfs below a directory others cannot search",
          "[integration][sandbox]") {
    Sandbox sb;
    // mktemp -d, tempfile.mkdtemp and $XDG_RUNTIME_DIR are 0700. The sandbox's init reaches its root before it
    // takes its ids in the user namespace (host uids from 2^30), so that does not matter.
    const std::string closed = sb.dir() + "/closed";
    REQUIRE(::mkdir(closed.c_str(), 0700) == 0);
    Output out = sb.command({paths().husk, "--root", closed + "/root", "sandbox", "--id", sb.id("sbxroot"), "--",
                             "sh", "-c", "id -u; ls -d /usr"});
    INFO(out.describe());
    CHECK(out.exit_code == 0);
    CHECK(out.out == "65534\n/usr\n");

    // A --rootfs there too; the rootfs directory itself becomes "/" and must be searchable by the sandbox's ids.
    const std::string rootfs = closed + "/rootfs";
    REQUIRE(::rename(sb.bundle().rootfs().c_str(), rootfs.c_str()) == 0);
    out = sb.command({paths().husk, "--root", closed + "/root", "sandbox", "--id", sb.id("sbxrootfs"), "--rootfs",
                      rootfs, "--", "sh", "-c", "id -u"});
    INFO(out.describe());
    CHECK(out.exit_code == 0);
    CHECK(out.out == "65534\n");
    REQUIRE(::chmod(rootfs.c_str(), 0700) == 0);
    out = sb.command({paths().husk, "--root", closed + "/root", "sandbox", "--id", sb.id("sbxclosed"), "--rootfs",
                      rootfs, "--", "true"});
    INFO(out.describe());
    CHECK(out.exit_code == 2);
    CHECK_THAT(out.err, Contains(rootfs + ": the sandbox's ids"));
    CHECK_THAT(out.err, Contains("--no-userns"));
    // Nothing left in the state root but the cache of compiled seccomp programs (husk(8) FILES).
    CHECK(std::system(("rm -r " + closed + "/root/.seccomp-cache && rmdir " + closed + "/root").c_str()) == 0);
}
