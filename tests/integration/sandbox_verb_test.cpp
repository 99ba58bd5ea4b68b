// `husk sandbox` (docs/husk.8.md, SANDBOX): the real binary, no bundle. What the program sees from inside (ids,
// capabilities, no_new_privs, seccomp, network, a read-only host view), the limits and the verdict, refusals,
// --print-config run again with `husk run --bundle`, --bind/--bind-rw and --rootfs; and that nothing is left
// behind, on any path, nor written into a host path.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <thread>
#include <csignal>
#include <string>
#include <vector>

#include "harness.hpp"
#include "monitor_support.hpp"
#include "sandbox_support.hpp"

using namespace husk::test;

namespace {

bool exists(const std::string& path) {
    struct stat st {};
    return ::lstat(path.c_str(), &st) == 0;
}

bool host_has_python3() { return exists("/usr/bin/python3"); }

// `husk sandbox --id ID flags... -- program...`.
Output sandbox(Sandbox& sb, const std::string& id, std::vector<std::string> flags, const std::vector<std::string>& program,
               SpawnOptions options = {}) {
    return sb.husk(sandbox_args(id, flags, program), std::move(options));
}

// The same with --verdict into a file of the test's own; the verdict, REQUIREd whole.
Json sandbox_verdict(Sandbox& sb, const std::string& id, std::vector<std::string> flags,
                     const std::vector<std::string>& program, Output* out = nullptr) {
    const std::string path = sb.dir() + "/verdict-" + id + ".json";
    flags.insert(flags.end(), {"--verdict", path});
    Output run = sandbox(sb, id, flags, program);
    INFO(run.describe());
    std::string text = read_file(path);
    INFO("verdict: " << text);
    REQUIRE(lines(text).size() == 1);
    Json verdict = Json::parse(text);
    CHECK(verdict["status"].num() == run.exit_code);
    if (out) *out = run;
    return verdict;
}

// The state root is where the tmpfs root is mounted, inside the container only: after the run it must be as
// empty as before, and no container may be listed.
void check_gone(Sandbox& sb) {
    Output listed = sb.husk({"list", "-q"});
    CHECK(listed.out.empty());
    check_nothing_left(sb);
}

}  // namespace

TEST_CASE("husk sandbox runs sh without a rootfs as nobody, without capabilities, under no_new_privs and seccomp",
          "[integration][sandbox]") {
    Sandbox sb;
    const std::string script =
        "id -u; id -g; grep -E '^(CapInh|CapPrm|CapEff|CapBnd|CapAmb|NoNewPrivs|Seccomp):' /proc/self/status; "
        "tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '";
    Output run = sandbox(sb, sb.id("posture"), {}, {"sh", "-c", script});
    INFO(run.describe());
    REQUIRE(run.exit_code == 0);
    CHECK(lines(run.out) == std::vector<std::string>{"65534", "65534", "CapInh:\t0000000000000000",
                                                     "CapPrm:\t0000000000000000", "CapEff:\t0000000000000000",
                                                     "CapBnd:\t0000000000000000", "CapAmb:\t0000000000000000",
                                                     "NoNewPrivs:\t1", "Seccomp:\t2", "lo"});
    check_gone(sb);
}

TEST_CASE("husk sandbox maps the sandbox's ids into 2^30.. of the host, or none with --no-userns", "[integration][sandbox]") {
    Sandbox sb;
    Output mapped = sandbox(sb, sb.id("userns"), {}, {"cat", "/proc/self/uid_map", "/proc/self/gid_map"});
    INFO(mapped.describe());
    REQUIRE(mapped.exit_code == 0);
    CHECK(lines(mapped.out) == std::vector<std::string>{"         0 1073741824      65536", "         0 1073741824      65536"});
    Output host = sandbox(sb, sb.id("no-userns"), {"--no-userns"}, {"sh", "-c", "cat /proc/self/uid_map; id -u"});
    INFO(host.describe());
    REQUIRE(host.exit_code == 0);
    CHECK(lines(host.out) == std::vector<std::string>{"         0          0 4294967295", "65534"});
    check_gone(sb);
}

TEST_CASE("husk sandbox runs the host's python3 and busybox", "[integration][sandbox]") {
    Sandbox sb;
    if (exists("/usr/bin/busybox") || exists("/bin/busybox")) {
        Output busybox = sandbox(sb, sb.id("busybox"), {}, {"busybox", "sh", "-c", "busybox echo ok; busybox id -u"});
        INFO(busybox.describe());
        CHECK(busybox.exit_code == 0);
        CHECK(lines(busybox.out) == std::vector<std::string>{"ok", "65534"});
    }
    if (!host_has_python3()) {
        WARN("skipped: the host has no /usr/bin/python3");
        return;
    }
    Output python = sandbox(sb, sb.id("python"), {},
                            {"python3", "-c", "import os, json; print(os.getuid(), json.dumps([1]), os.getcwd())"});
    INFO(python.describe());
    CHECK(python.exit_code == 0);
    CHECK(lines(python.out) == std::vector<std::string>{"65534 [1] /"});
    check_gone(sb);
}

TEST_CASE("husk sandbox runs a program the alternatives system links (awk through /etc/alternatives)",
          "[integration][sandbox]") {
    Sandbox sb;
    struct stat st {};
    if (::lstat("/usr/bin/awk", &st) != 0 || !S_ISLNK(st.st_mode) || !exists("/etc/alternatives/awk")) {
        WARN("skipped: the host's awk is not an alternatives link");
        return;
    }
    Output awk = sandbox(sb, sb.id("awk"), {}, {"sh", "-c", "echo a b | awk '{print $2}'"});
    INFO(awk.describe());
    CHECK(awk.exit_code == 0);
    CHECK(lines(awk.out) == std::vector<std::string>{"b"});
    check_gone(sb);
}

TEST_CASE("husk sandbox shows the host read-only and creates nothing in host paths", "[integration][sandbox]") {
    Sandbox sb;
    // A mount point beneath a directory the host does not have: made in the sandbox's tmpfs root, never on
    // the host. One beneath the read-only /usr cannot be made at all.
    const std::string absent = "/opt/husk-sandbox-test-" + sb.id("x");
    REQUIRE_FALSE(exists(absent));
    std::string data = sb.dir() + "/data";
    write_file(data, "data\n");
    const std::string script = "cat " + absent + "/f; touch /usr/husk-x 2>/dev/null || echo usr-ro; "
                               "touch /etc/husk-x 2>/dev/null || echo etc-ro; touch / 2>/dev/null || echo root-ro; "
                               "touch /tmp/ok && echo tmp-rw; ls /; cat /etc/passwd | cut -d: -f1,3";
    Output run = sandbox(sb, sb.id("ro"), {"--bind", data + ":" + absent + "/f"}, {"sh", "-c", script});
    INFO(run.describe());
    REQUIRE(run.exit_code == 0);
    std::vector<std::string> printed = lines(run.out);
    REQUIRE(printed.size() >= 5);
    CHECK(std::vector<std::string>(printed.begin(), printed.begin() + 5) ==
          std::vector<std::string>{"data", "usr-ro", "etc-ro", "root-ro", "tmp-rw"});
    CHECK(printed.back() == "nobody:65534");
    CHECK_FALSE(exists(absent));
    CHECK_FALSE(exists("/opt/husk-sandbox-test-" + sb.id("x")));
    CHECK_FALSE(exists("/usr/husk-x"));
    Output beneath_usr = sandbox(sb, sb.id("under-usr"), {"--bind", data + ":/usr/husk-sandbox-mnt"}, {"true"});
    INFO(beneath_usr.describe());
    CHECK(beneath_usr.exit_code != 0);
    CHECK_FALSE(exists("/usr/husk-sandbox-mnt"));
    check_gone(sb);
}

TEST_CASE("husk sandbox --net host sees the host's interfaces, the default only lo", "[integration][sandbox]") {
    Sandbox sb;
    const std::vector<std::string> names = {"sh", "-c", "tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' ' | sort"};
    Output host = sb.command({"/bin/sh", "-c", "tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' ' | sort"});
    Output shared = sandbox(sb, sb.id("net-host"), {"--net", "host"}, names);
    INFO(shared.describe());
    REQUIRE(shared.exit_code == 0);
    CHECK(lines(shared.out) == lines(host.out));
    Output none = sandbox(sb, sb.id("net-none"), {"--net", "none"}, names);
    CHECK(lines(none.out) == std::vector<std::string>{"lo"});
    // The resolver's files only come with the host's network.
    const std::vector<std::string> resolver = {"sh", "-c", "ls /etc"};
    Output etc_none = sandbox(sb, sb.id("etc-none"), {}, resolver);
    std::vector<std::string> etc = {"group", "ld.so.cache", "passwd"};
    if (exists("/etc/alternatives")) etc.insert(etc.begin(), "alternatives");
    CHECK(lines(etc_none.out) == etc);
    if (exists("/etc/resolv.conf")) {
        Output etc_host = sandbox(sb, sb.id("etc-host"), {"--net", "host"}, {"sh", "-c", "ls /etc | grep -c resolv.conf"});
        CHECK(lines(etc_host.out) == std::vector<std::string>{"1"});
    }
    check_gone(sb);
}

TEST_CASE("husk sandbox's default seccomp profile denies new user namespaces, keyrings and bpf",
          "[integration][sandbox]") {
    Sandbox sb;
    const std::string script = "for s in unshare-user keyctl bpf getpid; do /probe syscall $s; done";
    Output run = sandbox(sb, sb.id("denied"), {"--bind", paths().probe + ":/probe"}, {"sh", "-c", script});
    INFO(run.describe());
    REQUIRE(run.exit_code == 0);
    std::vector<std::string> printed = lines(run.out);
    REQUIRE(printed.size() == 4);
    CHECK(Json::parse(printed[0])["errno"].num() == EPERM);
    CHECK(Json::parse(printed[1])["errno"].num() == EPERM);
    CHECK(Json::parse(printed[2])["errno"].num() == EPERM);
    CHECK(Json::parse(printed[3])["errno"].num() == 0);
    // --seccomp unconfined is the explicit way out: no filter at all.
    Output unconfined = sandbox(sb, sb.id("unconfined"), {"--seccomp", "unconfined"},
                                {"grep", "^Seccomp:", "/proc/self/status"});
    CHECK(lines(unconfined.out) == std::vector<std::string>{"Seccomp:\t0"});
    check_gone(sb);
}

TEST_CASE("husk sandbox --cap gives the sandbox's user a capability in every set", "[integration][sandbox]") {
    Sandbox sb;
    Output run = sandbox(sb, sb.id("cap"), {"--cap", "net_raw"}, {"grep", "^CapEff:", "/proc/self/status"});
    INFO(run.describe());
    REQUIRE(run.exit_code == 0);
    CHECK(lines(run.out) == std::vector<std::string>{"CapEff:\t0000000000002000"});  // CAP_NET_RAW = 13
    check_gone(sb);
}

TEST_CASE("husk sandbox runs husk-init as pid 1, which reaps orphans", "[integration][sandbox]") {
    Sandbox sb;
    const std::string script =
        "echo parent $PPID; for i in 1 2 3; do sh -c 'sleep 0.1 &'; done; sleep 1; "
        "grep -l '^State:.Z' /proc/[0-9]*/status | wc -l";
    Output run = sandbox(sb, sb.id("reap"), {}, {"sh", "-c", script});
    INFO(run.describe());
    REQUIRE(run.exit_code == 0);
    CHECK(lines(run.out) == std::vector<std::string>{"parent 1", "0"});
    check_gone(sb);
}

TEST_CASE("husk sandbox --timeout ends the program with reason timeout and 128 + the stop signal", "[integration][sandbox]") {
    Sandbox sb;
    Json v = sandbox_verdict(sb, sb.id("timeout"), {"--timeout", "300ms", "--kill-grace", "5s"}, {"sleep", "60"});
    INFO(v.dump());
    CHECK(v["exit"]["reason"].str() == "timeout");
    // husk-init forwarded SIGTERM to sleep and reported that it died of it: the signal's status, never 0.
    CHECK(v["exit"]["signal"].num() == SIGTERM);
    CHECK(v["status"].num() == 128 + SIGTERM);
    CHECK(v["security"]["noNewPrivileges"].boolean());
    CHECK(v["limits"]["timeoutMs"].num() == 300);
    check_gone(sb);
}

TEST_CASE("husk sandbox's verdict says who the program was to the host: its uid, gid and user namespace",
          "[integration][sandbox]") {
    Sandbox sb;
    // By default uid 65534 in a user namespace whose 0 is host uid 2^30 (husk(8) SANDBOX).
    Json v = sandbox_verdict(sb, sb.id("who"), {}, {"true"});
    INFO(v.dump());
    CHECK(v["security"]["userNamespace"].boolean());
    CHECK(v["security"]["hostUid"].num() == 1073741824 + 65534);
    CHECK(v["security"]["hostGid"].num() == 1073741824 + 65534);
    v = sandbox_verdict(sb, sb.id("who-no-userns"), {"--no-userns"}, {"true"});
    INFO(v.dump());
    CHECK_FALSE(v["security"]["userNamespace"].boolean());
    CHECK(v["security"]["hostUid"].num() == 65534);
    CHECK(v["security"]["hostGid"].num() == 65534);
    check_gone(sb);
}

TEST_CASE("husk sandbox --output-limit delivers exactly up to the cap, then kills", "[integration][sandbox]") {
    Sandbox sb;
    Output run;
    Json v = sandbox_verdict(sb, sb.id("output"), {"--output-limit", "1k"}, {"yes"}, &run);
    INFO(v.dump());
    CHECK(v["exit"]["reason"].str() == "output-limit");
    CHECK(v["limits"]["outputLimitBytes"].num() == 1024);
    CHECK(run.out.size() == 1024);
    CHECK(run.exit_code == 128 + SIGKILL);
    check_gone(sb);
}

TEST_CASE("husk sandbox refuses a bad flag value before anything exists, and still writes the verdict",
          "[integration][sandbox]") {
    Sandbox sb;
    for (const std::vector<std::string>& flags :
         {std::vector<std::string>{"--memory", "lots"}, {"--net", "bridge"}, {"--cpus", "0"}, {"--bind", "relative:dst"}, {"--cwd", "tmp"},
          {"--env", "=x"}, {"--landlock-read", "data"}, {"--seccomp", "/etc/passwd"},
          {"--no-such-flag"}}) {
        INFO(flags.front());
        const std::string path = sb.dir() + "/refused.json";
        std::vector<std::string> args = {"sandbox"};
        args.insert(args.end(), flags.begin(), flags.end());
        args.insert(args.end(), {"--verdict", path, "--", "true"});
        Output run = sb.husk(args);
        INFO(run.describe());
        CHECK(run.exit_code == 2);
        Json v = Json::parse(read_file(path));
        CHECK(v["exit"]["reason"].str() == "refused");
        CHECK_FALSE(v["exit"]["detail"].str().empty());
        ::unlink(path.c_str());
    }
    check_gone(sb);
}

TEST_CASE("husk sandbox refuses a cgroup limit this host cannot enforce, naming it, and leaves nothing",
          "[integration][sandbox]") {
    Sandbox sb;
    if (cgroup2_mount() != "/sys/fs/cgroup/unified") {
        WARN("skipped: the host is not hybrid (the VM suite runs these limits)");
        return;
    }
    for (const std::string flag : {"--memory", "--pids", "--cpus"}) {
        const std::string id = sb.id("hybrid");
        Json v = sandbox_verdict(sb, id, {flag, flag == "--memory" ? "64m" : "2"}, {"true"});
        INFO(v.dump());
        CHECK(v["exit"]["reason"].str() == "refused");
        CHECK(v["exit"]["detail"].str().find("host is hybrid") != std::string::npos);
        CHECK_FALSE(exists(cgroup2_mount() + "/husk/" + id));
    }
    check_gone(sb);
}

TEST_CASE("husk sandbox --print-config prints a config that husk run --bundle runs", "[integration][sandbox]") {
    Sandbox sb;
    Output printed = sb.husk({"sandbox", "--print-config", "--timeout", "30s", "--", "sh", "-c", "echo from-config; id -u"});
    INFO(printed.describe());
    REQUIRE(printed.exit_code == 0);
    Json config = Json::parse(printed.out);
    CHECK(config["annotations"]["run.husk.root"].str() == "tmpfs");
    CHECK(config["annotations"]["run.husk.timeout"].str() == "30s");
    Bundle b;
    b.dir = sb.dir() + "/printed";
    REQUIRE(::mkdir(b.dir.c_str(), 0755) == 0);
    write_file(b.config_path(), printed.out);
    Output run = sb.husk({"run", "--bundle", b.dir, sb.id("printed")});
    INFO(run.describe());
    CHECK(run.exit_code == 0);
    CHECK(lines(run.out) == std::vector<std::string>{"from-config", "65534"});
    check_gone(sb);
}

TEST_CASE("husk sandbox --bind is read-only, --bind-rw writable", "[integration][sandbox]") {
    Sandbox sb;
    const std::string ro = sb.dir() + "/ro", rw = sb.dir() + "/rw";
    REQUIRE(::mkdir(ro.c_str(), 0755) == 0);
    REQUIRE(::mkdir(rw.c_str(), 0777) == 0);
    REQUIRE(::chmod(rw.c_str(), 0777) == 0);  // the sandbox's user is nobody of its user namespace
    write_file(ro + "/in", "input\n");
    const std::string script = "cat /in/in; echo x > /in/new 2>/dev/null || echo in-ro; echo result > /out/result";
    Output run = sandbox(sb, sb.id("binds"), {"--bind", ro + ":/in", "--bind-rw", rw + ":/out"}, {"sh", "-c", script});
    INFO(run.describe());
    REQUIRE(run.exit_code == 0);
    CHECK(lines(run.out) == std::vector<std::string>{"input", "in-ro"});
    CHECK(read_file(rw + "/result") == "result\n");
    CHECK_FALSE(exists(ro + "/new"));
    check_gone(sb);
}

TEST_CASE("husk sandbox --rootfs runs in the busybox rootfs, read-only", "[integration][sandbox]") {
    Sandbox sb;
    Bundle b = sb.bundle();
    Output run = sandbox(sb, sb.id("rootfs"), {"--rootfs", b.rootfs()},
                         {"/bin/sh", "-c", "id -u; touch /x 2>/dev/null || echo root-ro; /probe syscall bpf"});
    INFO(run.describe());
    REQUIRE(run.exit_code == 0);
    std::vector<std::string> printed = lines(run.out);
    REQUIRE(printed.size() == 3);
    CHECK(printed[0] == "65534");
    CHECK(printed[1] == "root-ro");
    CHECK(Json::parse(printed[2])["errno"].num() == EPERM);
    CHECK_FALSE(exists(b.rootfs() + "/x"));
    // A mount point the rootfs lacks is refused, never made in the host directory, with or without userns.
    for (const std::vector<std::string>& extra : {std::vector<std::string>{}, {"--no-userns"}}) {
        std::vector<std::string> flags = {"--rootfs", b.rootfs(), "--bind", b.dir + ":/husk-new"};
        flags.insert(flags.end(), extra.begin(), extra.end());
        Output refused = sandbox(sb, sb.id("no-point"), flags, {"/bin/true"});
        INFO(refused.describe());
        CHECK(refused.exit_code == 2);
        CHECK_FALSE(exists(b.rootfs() + "/husk-new"));
    }
    check_gone(sb);
}

TEST_CASE("husk sandbox's generated id is a fresh sandbox-... and gone afterwards", "[integration][sandbox]") {
    Sandbox sb;
    Output first = sb.husk({"sandbox", "--verdict", sb.dir() + "/a.json", "--", "true"});
    Output second = sb.husk({"sandbox", "--verdict", sb.dir() + "/b.json", "--", "true"});
    INFO(first.describe() << second.describe());
    REQUIRE(first.exit_code == 0);
    REQUIRE(second.exit_code == 0);
    std::string a = Json::parse(read_file(sb.dir() + "/a.json"))["id"].str();
    std::string b = Json::parse(read_file(sb.dir() + "/b.json"))["id"].str();
    CHECK(a.rfind("sandbox-", 0) == 0);
    CHECK(a.size() == 8 + 16);
    CHECK(a != b);
    for (const std::string& id : {a, b}) {
        CHECK_FALSE(exists(sb.root() + "/" + id));
        if (!cgroup2_mount().empty()) CHECK_FALSE(exists(cgroup2_mount() + "/husk/" + id));
    }
    check_gone(sb);
}

TEST_CASE("husk sandbox with the id of a container that exists refuses and leaves that container alone",
          "[integration][sandbox]") {
    Sandbox sb;
    const std::string id = sb.id("taken");
    Process first = sb.spawn_husk({"sandbox", "--id", id, "--", "sleep", "60"});
    // Running, not only there: `state` answers from the first record on ("creating"), and the check below
    // compares the status before and after.
    auto deadline = std::chrono::steady_clock::now() + Ms(20000);
    while (sb.husk({"state", id}).exit_code != 0 && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(Ms(20));
    sb.wait_for_status(id, "running", Ms(20000));
    const std::string path = sb.dir() + "/second.json";
    Output second = sandbox(sb, id, {"--verdict", path}, {"true"});
    INFO(second.describe());
    CHECK(second.exit_code == 2);
    Json v = Json::parse(read_file(path));
    CHECK(v["exit"]["reason"].str() == "refused");
    CHECK(v["exit"]["detail"].str() == "container with id \"" + id + "\" already exists");
    CHECK(sb.state(id)["status"].str() == "running");
    require_ok(sb.husk({"kill", id, "KILL"}));
    Output out = first.wait();
    CHECK(out.exit_code == 128 + SIGKILL);
    check_gone(sb);
}
