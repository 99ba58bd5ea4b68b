// `husk sandbox` attacked (docs/security.md, "husk sandbox threat model"): the program tries to reach the host,
// regain privileges, exhaust the host, talk to host services or read what is not its own, and a careless
// caller points husk at paths the program controls. Each test drives the real binary and checks the outcome
// the attack would change, then that nothing is left behind.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <netinet/in.h>
#include <unistd.h>

#include <csignal>
#include <cstring>
#include <string>
#include <vector>

#include "harness.hpp"
#include "sandbox_support.hpp"

using namespace husk::test;
using Catch::Matchers::Contains;

namespace {

Output sandbox(Sandbox& sb, const std::string& id, const std::vector<std::string>& flags,
               const std::vector<std::string>& program) {
    return sb.husk(sandbox_args(id, flags, program));
}

// `sh -c SCRIPT` in a default sandbox, which must exit 0; its stdout lines.
std::vector<std::string> sh(Sandbox& sb, const std::string& name, const std::string& script,
                            const std::vector<std::string>& flags = {}) {
    Output run = sandbox(sb, sb.id(name), flags, {"sh", "-c", script});
    INFO(run.describe());
    REQUIRE(run.exit_code == 0);
    return lines(run.out);
}

void check_gone(Sandbox& sb) {
    CHECK(sb.husk({"list", "-q"}).out.empty());
    check_nothing_left(sb);
}

bool host_has(const char* path) { return ::access(path, X_OK) == 0; }

// The attacks written in Python need the host's python3 (the sandbox's view of /usr).
bool python3_or_warn() {
    if (host_has("/usr/bin/python3")) return true;
    WARN("skipped: needs the host's python3");
    return false;
}

}  // namespace

TEST_CASE("sandbox escape: a symlink planted where husk writes the verdict is not followed",
          "[integration][sandbox][sandbox-escape]") {
    // Whoever may write the verdict's directory (another user in a shared /tmp; the program itself, had the
    // caller put the verdict in its --bind-rw directory) plants a symlink at the name husk's atomic write
    // used to use (".NAME.tmp"), pointing at a host file that husk, as root, must not truncate or write.
    Sandbox sb;
    const std::string shared = sb.dir() + "/shared", victim = sb.dir() + "/victim";
    REQUIRE(::mkdir(shared.c_str(), 01777) == 0);
    write_file(victim, "precious\n");
    REQUIRE(::symlink(victim.c_str(), (shared + "/.v.json.tmp").c_str()) == 0);
    Output run = sandbox(sb, sb.id("verdict-link"), {"--verdict", shared + "/v.json"}, {"true"});
    INFO(run.describe());
    CHECK(run.exit_code == 0);
    CHECK(read_file(victim) == "precious\n");
    CHECK(Json::parse(read_file(shared + "/v.json"))["exit"]["reason"].str() == "exited");
    check_gone(sb);
}

TEST_CASE("sandbox escape: a --verdict or --log inside a --bind-rw directory is refused", "[integration][sandbox][sandbox-escape]") {
    // There the program could make the verdict's name a directory (no verdict) or a component a symlink (husk
    // creating it elsewhere). Refused before anything runs: a directory the sandbox's user can write is one another
    // user can, so the rule for every file husk writes for its caller (husk(8) FILES) refuses it first, and
    // nothing is written there.
    Sandbox sb;
    const std::string out = sb.dir() + "/out";
    REQUIRE(::mkdir(out.c_str(), 0777) == 0);
    REQUIRE(::chmod(out.c_str(), 0777) == 0);
    REQUIRE(::mkdir((out + "/sub").c_str(), 0777) == 0);
    for (const std::string& verdict : {out + "/v.json", out + "/sub/v.json"}) {
        Output run = sandbox(sb, sb.id("verdict-in-rw"), {"--bind-rw", out + ":/out", "--verdict", verdict},
                             {"sh", "-c", "echo ran"});
        INFO(run.describe());
        CHECK(run.exit_code == 2);
        CHECK(run.out.empty());
        CHECK_THAT(run.err, Contains("--verdict " + verdict) && Contains(out + " is writable by every user"));
        CHECK(::access(verdict.c_str(), F_OK) != 0);
    }
    // husk's --log likewise: it is opened for each message, following what the name has become.
    Output logged = sb.husk({"--log", out + "/husk.log", "sandbox", "--id", sb.id("log-in-rw"), "--bind-rw",
                             out + ":/out", "--", "true"});
    INFO(logged.describe());
    CHECK(logged.exit_code == 2);
    CHECK_THAT(logged.err, Contains("--log " + out + "/husk.log") && Contains(out + " is writable by every user"));
    // A directory that one other user alone owns passes that rule as the file's own directory (podman's
    // userdata with --uidmap); the sandbox's own check refuses it when it is bound writable.
    const std::string theirs = sb.dir() + "/theirs";
    REQUIRE(::mkdir(theirs.c_str(), 0700) == 0);
    REQUIRE(::chown(theirs.c_str(), 100000, 100000) == 0);
    Output owned = sb.husk({"--log", theirs + "/husk.log", "sandbox", "--id", sb.id("owned-rw"), "--bind-rw",
                            theirs + ":/out", "--verdict", theirs + "/v.json", "--", "sh", "-c", "echo ran"});
    INFO(owned.describe());
    CHECK(owned.exit_code == 2);
    CHECK(owned.out.empty());
    CHECK_THAT(owned.err, Contains("is in --bind-rw " + theirs));
    CHECK(::access((theirs + "/v.json").c_str(), F_OK) != 0);
    check_gone(sb);
}

TEST_CASE("sandbox escape: a bind destination with \"..\" is refused", "[integration][sandbox][sandbox-escape]") {
    // mnt resolves a destination inside the root whatever it says, so nothing lands on the host; refused
    // anyway, as the text does not say where the bind lands.
    Sandbox sb;
    for (const char* destination : {"/../../x", "/tmp/../x", "/x/.."}) {
        Output run = sandbox(sb, sb.id("dotdot"), {"--bind", sb.dir() + ":" + std::string(destination)}, {"true"});
        INFO(run.describe());
        CHECK(run.exit_code == 2);
        CHECK(run.err.find("must not contain \"..\"") != std::string::npos);
    }
    check_gone(sb);
}

TEST_CASE("sandbox escape: the program can neither write husk-init's memory nor open its fds",
          "[integration][sandbox][sandbox-escape]") {
    // husk-init (pid 1) runs as the program's uid and holds the report pipe the verdict trusts: /proc/1/mem
    // opened for writing would let the program run its own code as pid 1 and forge that report.
    Sandbox sb;
    const std::string script =
        "if (exec 3<>/proc/1/mem) 2>/dev/null; then echo mem-open; else echo mem-denied; fi; "
        "if ls /proc/1/fd >/dev/null 2>&1; then echo fd-listed; else echo fd-denied; fi; "
        "if cat /proc/1/environ >/dev/null 2>&1; then echo environ-read; else echo environ-denied; fi; "
        "ls /proc/self/fd/ | tr '\\n' ' '";
    CHECK(sh(sb, "init-mem", script) ==
          std::vector<std::string>{"mem-denied", "fd-denied", "environ-denied", "0 1 2 3 "});
    check_gone(sb);
}

TEST_CASE("sandbox escape: /tmp and /dev/shm are size- and inode-capped tmpfs", "[integration][sandbox][sandbox-escape]") {
    // Without size= a tmpfs may grow to half the host's RAM, with no memory cgroup to charge on a hybrid host.
    Sandbox sb;
    const std::vector<std::string> out =
        sh(sb, "tmpfs-cap", "for m in /tmp /dev/shm; do grep \" $m \" /proc/self/mountinfo | grep -o 'size=[0-9]*k'; "
                            "grep \" $m \" /proc/self/mountinfo | grep -o 'nr_inodes=[0-9]*'; done; "
                            "dd if=/dev/zero of=/tmp/fill bs=1M count=300 2>/dev/null && echo filled || echo full");
    CHECK(out == std::vector<std::string>{"size=262144k", "nr_inodes=65536", "size=65536k", "nr_inodes=65536", "full"});
    CHECK(sh(sb, "tmp-size", "grep ' /tmp ' /proc/self/mountinfo | grep -o 'size=[0-9]*k'", {"--tmp-size", "1g"}) ==
          std::vector<std::string>{"size=1048576k"});
    check_gone(sb);
}

TEST_CASE("sandbox escape: a fork bomb meets a default process ceiling, --nproc sets another; no core dumps",
          "[integration][sandbox][sandbox-escape]") {
    // On a hybrid host --pids is refused (cgroup v1 pids): RLIMIT_NPROC, counted per user namespace and uid,
    // is the ceiling that holds everywhere. The bomb is bounded by the test itself (2000 sleeps at most).
    Sandbox sb;
    CHECK(sh(sb, "nproc-default", "grep -E 'Max (processes|core file size)' /proc/self/limits | sed -E 's/.* ([0-9a-z]+) +([0-9a-z]+) +[a-z]+ *$/\\1 \\2/'") ==
          std::vector<std::string>{"0 0", "1024 1024"});
    if (host_has("/usr/bin/python3")) {
        const std::string bomb =
            "import os, signal\n"
            "n = 0\n"
            "try:\n"
            "    while n < 2000:\n"
            "        if os.fork() == 0:\n"
            "            signal.pause()\n"
            "        n += 1\n"
            "except OSError:\n"
            "    pass\n"
            "print('stopped' if 32 < n < 64 else 'forked %d' % n, flush=True)\n"
            "os.kill(-1, signal.SIGKILL)\n";
        Output run = sandbox(sb, sb.id("nproc-bomb"), {"--nproc", "64", "--timeout", "60s"}, {"python3", "-c", bomb});
        INFO(run.describe());
        CHECK(run.exit_code == 0);
        CHECK(lines(run.out) == std::vector<std::string>{"stopped"});
    }
    check_gone(sb);
}

TEST_CASE("sandbox escape: no host path is writable, /sys and the state root are out of sight",
          "[integration][sandbox][sandbox-escape]") {
    Sandbox sb;
    const std::string script =
        "for p in /proc/sys/kernel/hostname /proc/sysrq-trigger /proc/self/root/usr/x /proc/1/root/etc/passwd "
        "/usr/x /etc/x /x /dev/x; do (echo x > $p) 2>/dev/null && echo wrote $p; done; "
        "for p in /sys /run /var /home /root /etc/shadow /etc/machine-id /etc/hostname; do [ -e $p ] && echo seen $p; done; "
        "ls /etc | tr '\\n' ' '; echo; hostname";
    // Only husk's two files and, where the host has them, its ld.so.cache and alternatives links.
    const std::string etc = std::string(::access("/etc/alternatives", F_OK) == 0 ? "alternatives " : "") +
                            (::access("/etc/ld.so.cache", F_OK) == 0 ? "group ld.so.cache passwd " : "group passwd ");
    CHECK(sh(sb, "host-paths", script) == std::vector<std::string>{etc, "sandbox"});
    check_gone(sb);
}

TEST_CASE("sandbox escape: a bind or --rootfs that is, is in or holds the state root is refused", "[integration][sandbox][sandbox-escape]") {
    // The state root holds every container's state and control sockets; it is where the tmpfs root is
    // mounted, so such a bind would show the sandbox its own root, or with --bind-rw the state of others.
    Sandbox sb;
    const std::string link = sb.dir() + "/state-link";
    REQUIRE(::symlink(sb.root().c_str(), link.c_str()) == 0);
    for (const std::string& flag : {std::string("--bind"), std::string("--bind-rw")}) {
        for (const std::string& source : {sb.root(), sb.root() + "/.", link}) {
            Output run = sandbox(sb, sb.id("state-bind"), {flag, source + ":/x"}, {"true"});
            INFO(run.describe());
            CHECK(run.exit_code == 2);
            CHECK(run.err.find("state root") != std::string::npos);
        }
    }
    // A --rootfs holding it would show it too (`--rootfs /`, "the whole host read-only").
    Output rootfs = sandbox(sb, sb.id("state-rootfs"), {"--rootfs", "/"}, {"true"});
    INFO(rootfs.describe());
    CHECK(rootfs.exit_code == 2);
    CHECK(rootfs.err.find("--rootfs /: holds husk's state root") != std::string::npos);
    check_gone(sb);
}

TEST_CASE("sandbox escape: setuid binaries and user namespaces give no privilege", "[integration][sandbox][sandbox-escape]") {
    Sandbox sb;
    std::string script =
        "grep ' /usr ' /proc/self/mountinfo | grep -q nosuid && echo usr-nosuid; "
        "unshare -U true 2>/dev/null || echo unshare-U-denied; "
        "unshare -r true 2>/dev/null || echo unshare-r-denied; "
        "unshare -n true 2>/dev/null || echo unshare-n-denied; ";
    std::vector<std::string> expected = {"usr-nosuid", "unshare-U-denied", "unshare-r-denied", "unshare-n-denied"};
    if (host_has("/usr/bin/su")) {
        // su is setuid root on the host: with nosuid and no_new_privs it runs as nobody and cannot switch.
        script += "su -c 'echo became-root' root </dev/null 2>/dev/null || echo su-denied; ";
        expected.push_back("su-denied");
    }
    if (host_has("/usr/bin/python3")) {
        script += "python3 -c 'import socket\ntry:\n socket.socket(socket.AF_INET, socket.SOCK_RAW, 1); print(\"raw\")\n"
                  "except OSError as e: print(\"raw-denied\")'";
        expected.push_back("raw-denied");
    }
    CHECK(sh(sb, "privilege", script) == expected);
    check_gone(sb);
}

TEST_CASE("sandbox escape: with the default network the host's abstract and TCP listeners are unreachable",
          "[integration][sandbox][sandbox-escape]") {
    if (!python3_or_warn()) return;
    Sandbox sb;
    // An abstract unix socket and a TCP socket on 127.0.0.1, both listening in the host's network namespace.
    int abstract = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    REQUIRE(abstract >= 0);
    sockaddr_un un{};
    un.sun_family = AF_UNIX;
    const std::string name = "husk-escape-" + std::to_string(::getpid());
    std::memcpy(un.sun_path + 1, name.data(), name.size());
    REQUIRE(::bind(abstract, reinterpret_cast<sockaddr*>(&un),
                   static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + name.size())) == 0);
    REQUIRE(::listen(abstract, 4) == 0);
    int tcp = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    REQUIRE(tcp >= 0);
    sockaddr_in in{};
    in.sin_family = AF_INET;
    in.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(::bind(tcp, reinterpret_cast<sockaddr*>(&in), sizeof in) == 0);
    REQUIRE(::listen(tcp, 4) == 0);
    socklen_t length = sizeof in;
    REQUIRE(::getsockname(tcp, reinterpret_cast<sockaddr*>(&in), &length) == 0);
    const std::string port = std::to_string(ntohs(in.sin_port));
    const std::string script =
        "import socket\n"
        "def attempt(family, address):\n"
        "    s = socket.socket(family, socket.SOCK_STREAM)\n"
        "    s.settimeout(5)\n"
        "    try:\n"
        "        s.connect(address); return 'connected'\n"
        "    except OSError as e: return 'refused'\n"
        "print(attempt(socket.AF_UNIX, '\\0" + name + "'))\n"
        "print(attempt(socket.AF_INET, ('127.0.0.1', " + port + ")))\n";
    Output run = sandbox(sb, sb.id("net"), {}, {"python3", "-c", script});
    ::close(abstract);
    ::close(tcp);
    INFO(run.describe());
    CHECK(run.exit_code == 0);
    CHECK(lines(run.out) == std::vector<std::string>{"refused", "refused"});
    check_gone(sb);
}

TEST_CASE("sandbox escape: the caller's environment and session are not the program's",
          "[integration][sandbox][sandbox-escape]") {
    // A secret in husk's environment must not reach the program; the program is in a session of its own, so
    // it has no controlling terminal to push input into (TIOCSTI) even when the caller's stdin is one.
    Sandbox sb;
    SpawnOptions options;
    options.env = {"HUSK_ESCAPE_SECRET=hunter2"};
    Output run = sb.husk(sandbox_args(sb.id("env"), {}, {"sh", "-c", "env | grep -c hunter2; cut -d' ' -f7 /proc/self/stat; "
                                                                       "(: < /dev/tty) 2>/dev/null || echo no-tty"}),
                         options);
    INFO(run.describe());
    CHECK(run.exit_code == 0);
    CHECK(lines(run.out) == std::vector<std::string>{"0", "0", "no-tty"});
    check_gone(sb);
}

TEST_CASE("sandbox escape: an orphaned daemon dies with the sandbox, pid 1 shrugs off signals, --verdict-fd stays husk's",
          "[integration][sandbox][sandbox-escape]") {
    if (!python3_or_warn()) return;
    // The test harness finds leftovers by a marker in the environment, which the sandbox never passes on: the
    // daemon carries one in its argv instead, looked for in every /proc/N/cmdline of the host.
    Sandbox sb;
    const std::string marker = "husk-escape-daemon-" + std::to_string(::getpid());
    int pipe_fds[2];
    REQUIRE(::pipe2(pipe_fds, O_CLOEXEC) == 0);
    SpawnOptions options;
    options.extra_fds = {pipe_fds[1]};  // fd 3 of husk
    const std::string script =
        "readlink /proc/$$/fd/3 2>/dev/null || echo no-fd-3; "
        "python3 -c 'import os, time\nif os.fork() == 0:\n    os.setsid(); time.sleep(300)' " + marker + "; "
        "sleep 0.2; kill -KILL 1; kill -STOP 1; kill -SEGV 1 2>/dev/null; sleep 5";
    Output run = sb.husk(sandbox_args(sb.id("daemon"), {"--verdict-fd", "3"}, {"sh", "-c", script}), options);
    ::close(pipe_fds[1]);
    std::string verdict;
    char buffer[4096];
    for (ssize_t n; (n = ::read(pipe_fds[0], buffer, sizeof buffer)) > 0;) verdict.append(buffer, static_cast<std::size_t>(n));
    ::close(pipe_fds[0]);
    INFO(run.describe());
    INFO("verdict: " << verdict);
    // SIGSEGV to pid 1 is forwarded to the program (husk-init's semantics): the shell dies of it, and the
    // verdict says so; SIGKILL and SIGSTOP from inside are ignored by the kernel for a pid namespace's init.
    CHECK(lines(run.out) == std::vector<std::string>{"no-fd-3"});
    CHECK(run.exit_code == 128 + SIGSEGV);
    CHECK(Json::parse(verdict)["exit"]["signal"].num() == SIGSEGV);
    bool found = false;
    for (const std::string& pid : lines(sb.command({"/bin/sh", "-c", "ls /proc | grep -E '^[0-9]+$'"}).out))
        if (read_file("/proc/" + pid + "/cmdline").find(marker) != std::string::npos) found = true;
    CHECK_FALSE(found);
    check_gone(sb);
}

TEST_CASE("sandbox escape: the default sandbox has no vsock, nor any socket family its network namespace does not hold",
          "[integration][sandbox][sandbox-escape]") {
    // vsock is not network-namespaced: a "loopback-only" sandbox would bind ports in the machine-wide vsock space
    // and reach the hypervisor's services. Sockets are only made and closed here; nothing is sent on any.
    if (!python3_or_warn()) return;
    Sandbox sb;
    const std::string script =
        "import socket\n"
        "def made(family, kind):\n"
        "    try:\n"
        "        socket.socket(family, kind).close()\n"
        "        return 0\n"
        "    except OSError as e:\n"
        "        return e.errno\n"
        "for name, family, kind in [('vsock', socket.AF_VSOCK, socket.SOCK_STREAM),\n"
        "                           ('alg', socket.AF_ALG, socket.SOCK_SEQPACKET),\n"
        "                           ('bluetooth', socket.AF_BLUETOOTH, socket.SOCK_STREAM),\n"
        "                           ('unix', socket.AF_UNIX, socket.SOCK_STREAM),\n"
        "                           ('inet', socket.AF_INET, socket.SOCK_DGRAM),\n"
        "                           ('inet6', socket.AF_INET6, socket.SOCK_DGRAM),\n"
        "                           ('netlink', socket.AF_NETLINK, socket.SOCK_RAW)]:\n"
        "    print(name, made(family, kind))\n";
    Output run = sandbox(sb, sb.id("families"), {}, {"python3", "-c", script});
    INFO(run.describe());
    REQUIRE(run.exit_code == 0);
    const std::string refused = std::to_string(EAFNOSUPPORT);
    CHECK(lines(run.out) == std::vector<std::string>{"vsock " + refused, "alg " + refused, "bluetooth " + refused,
                                                    "unix 0", "inet 0", "inet6 0", "netlink 0"});
    check_gone(sb);
}
