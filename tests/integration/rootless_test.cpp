// husk without root (docs/rootless.md), on this host: no cgroup is delegated to the test's user, so what needs a
// cgroup is refused and everything else works. Each test makes its own unprivileged user (useradd) and runs the
// real binary as that user with setpriv; the VM suite adds a delegated cgroup (vm_rootless_test.cpp).
#include <catch2/catch.hpp>

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <chrono>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "harness.hpp"
#include "rootless_support.hpp"
#include "sandbox_support.hpp"

using namespace husk::test;

namespace {

// The verdict of `husk sandbox --verdict FILE` run as `user`, REQUIREd whole; the run's output in *out.
Json user_verdict(const TestUser& user, const std::string& id, std::vector<std::string> flags,
                  const std::vector<std::string>& program, Output* out) {
    const std::string path = user.home() + "/verdict-" + id + ".json";
    flags.insert(flags.end(), {"--verdict", path});
    *out = user.husk(sandbox_args(id, flags, program));
    INFO(out->describe());
    const std::string text = read_file(path);
    INFO("verdict: " << text);
    REQUIRE(lines(text).size() == 1);
    return Json::parse(text);
}

// Nothing of the user's left: no process, no container in its state root.
void check_user_left_nothing(Sandbox& sb, const TestUser& user) {
    // A husk that is not the test's child (--die-with-parent's) may still be deleting its container: wait for
    // the user's processes to end first.
    std::vector<pid_t> left;
    for (int i = 0; i < 200 && !(left = user.processes()).empty(); ++i) std::this_thread::sleep_for(Ms(50));
    std::string described;
    for (pid_t pid : left) {
        std::string cmdline = read_file("/proc/" + std::to_string(pid) + "/cmdline");
        std::replace(cmdline.begin(), cmdline.end(), '\0', ' ');
        described += std::to_string(pid) + ": " + cmdline + "\n";
    }
    INFO("the user's processes left:\n" << described);
    CHECK(left.empty());
    Output listed = user.husk({"list", "-q"});
    INFO(listed.describe());
    CHECK(listed.exit_code == 0);
    CHECK(listed.out.empty());
    check_nothing_left(sb);
}

// Until the program said "started" (30 s at most: the machine may be loaded).
void wait_for_start(const Process& process) {
    for (int i = 0; i < 1200 && process.current_out().find("started") == std::string::npos; ++i)
        std::this_thread::sleep_for(Ms(25));
}

std::string status_line(const std::string& status, const std::string& key) {
    for (const std::string& line : lines(status))
        if (line.rfind(key + ":", 0) == 0) return line.substr(key.size() + 1);
    return "";
}

}  // namespace

TEST_CASE("rootless: husk sandbox as an unprivileged user, its own ids mapped, hardened, state under XDG_RUNTIME_DIR",
          "[integration][rootless]") {
    Sandbox sb;
    TestUser user(sb, TestUser::Subids::none);
    Output out;
    Json verdict = user_verdict(user, sb.id("rl-basic"), {},
                                {"sh", "-c", "id -u; id -g; cat /proc/self/uid_map /proc/self/gid_map; "
                                             "cat /proc/self/status; ls -d /usr /tmp; "
                                             "touch /usr/husk-rl 2>/dev/null || echo usr-read-only; "
                                             "touch /tmp/x && echo tmp-writable; "
                                             "echo interfaces $(tail -n +3 /proc/net/dev | cut -d: -f1)"}, &out);
    INFO(out.describe());
    REQUIRE(out.exit_code == 0);
    std::vector<std::string> seen = lines(out.out);
    REQUIRE(seen.size() > 4);
    // Without subordinate ids the caller's own uid and gid are the program's, shown as nobody/nogroup.
    CHECK(seen[0] == "65534");
    CHECK(seen[1] == "65534");
    CHECK_THAT(seen[2], Catch::Matches("\\s*65534\\s+" + std::to_string(user.uid()) + "\\s+1"));
    CHECK_THAT(seen[3], Catch::Matches("\\s*65534\\s+" + std::to_string(user.gid()) + "\\s+1"));
    // The hardened profile's posture, as the kernel shows it: no_new_privs, a seccomp filter, no capability.
    CHECK_THAT(status_line(out.out, "NoNewPrivs"), Catch::Contains("1"));
    CHECK_THAT(status_line(out.out, "Seccomp"), Catch::Contains("2"));
    CHECK_THAT(status_line(out.out, "CapEff"), Catch::Contains("0000000000000000"));
    CHECK_THAT(out.out, Catch::Contains("/tmp\n/usr\n"));
    // The read-only host view, a tmpfs /tmp, a network namespace of its own with only lo.
    CHECK_THAT(out.out, Catch::Contains("usr-read-only\ntmp-writable\n"));
    CHECK_THAT(out.out, Catch::Contains("interfaces lo\n"));
    CHECK(verdict["exit"]["reason"].str() == "exited");
    CHECK(verdict["security"]["noNewPrivileges"].boolean());
    CHECK(verdict["security"]["seccomp"].str() == "filter");
    // The map in force, as the verdict records it.
    const Json& uid_map = verdict["security"]["uidMap"];
    REQUIRE(uid_map.size() == 1);
    CHECK(uid_map.at(0)["containerID"].num() == 65534);
    CHECK(uid_map.at(0)["hostID"].num() == user.uid());
    CHECK(uid_map.at(0)["size"].num() == 1);
    CHECK(verdict["security"]["gidMap"].at(0)["hostID"].num() == user.gid());
    // The state root is the user's alone.
    struct stat st {};
    REQUIRE(::stat(user.state_root().c_str(), &st) == 0);
    CHECK((st.st_mode & 07777) == 0700);
    CHECK(st.st_uid == user.uid());
    check_user_left_nothing(sb, user);
}

TEST_CASE("rootless: with subordinate ids and newuidmap the program holds none of the caller's ids",
          "[integration][rootless]") {
    Sandbox sb;
    TestUser user(sb, TestUser::Subids::range);
    const std::string out_dir = user.home() + "/out";
    REQUIRE(::mkdir(out_dir.c_str(), 01777) == 0);
    REQUIRE(::chmod(out_dir.c_str(), 01777) == 0);
    Output out = user.husk(sandbox_args(sb.id("rl-subids"), {"--bind-rw", out_dir + ":/out"},
                                        {"sh", "-c", "cat /proc/self/uid_map; touch /out/made"}));
    INFO(out.describe());
    REQUIRE(out.exit_code == 0);
    std::vector<std::string> maps = lines(out.out);
    REQUIRE(maps.size() == 2);
    CHECK_THAT(maps[0], Catch::Matches("\\s*0\\s+" + std::to_string(user.uid()) + "\\s+1"));
    CHECK_THAT(maps[1], Catch::Matches("\\s*1\\s+" + std::to_string(user.subid_start()) + "\\s+65535"));
    // The program is 65534 inside: subordinate id 65533 on the host, not the caller.
    struct stat st {};
    REQUIRE(::stat((out_dir + "/made").c_str(), &st) == 0);
    CHECK(st.st_uid == user.subid_start() + 65533);
    CHECK(st.st_gid == user.subid_start() + 65533);
    ::unlink((out_dir + "/made").c_str());
    check_user_left_nothing(sb, user);
}

TEST_CASE("rootless: limits without a cgroup work, those that need one are refused naming why",
          "[integration][rootless]") {
    Sandbox sb;
    TestUser user(sb, TestUser::Subids::none);
    Output out;
    Json timed = user_verdict(user, sb.id("rl-timeout"), {"--timeout", "300ms", "--kill-grace", "200ms"},
                              {"sleep", "30"}, &out);
    CHECK(timed["exit"]["reason"].str() == "timeout");
    CHECK(out.exit_code == 128 + SIGTERM);
    Json capped = user_verdict(user, sb.id("rl-output"), {"--output-limit", "100"}, {"sh", "-c", "yes"}, &out);
    CHECK(capped["exit"]["reason"].str() == "output-limit");
    CHECK(out.out.size() == 100);
    // RLIMIT_NPROC holds without a cgroup (counted in the sandbox's user namespace): the fork bomb meets it.
    const std::string bomb_script = "import os, time\n"
                                    "forked = 0\n"
                                    "for i in range(40):\n"
                                    "    try:\n"
                                    "        if os.fork() == 0:\n"
                                    "            time.sleep(5)\n"
                                    "            os._exit(0)\n"
                                    "        forked += 1\n"
                                    "    except BlockingIOError:\n"
                                    "        break\n"
                                    "print(forked)\n";
    Output bomb = user.husk(sandbox_args(sb.id("rl-nproc"), {"--nproc", "20", "--timeout", "10s"},
                                         {"python3", "-c", bomb_script}));
    INFO(bomb.describe());
    CHECK(bomb.exit_code == 0);
    const int forked = std::atoi(bomb.out.c_str());
    CHECK(forked > 0);
    CHECK(forked < 20);
    for (const std::vector<std::string>& flag : std::vector<std::vector<std::string>>{
             {"--memory", "64m"}, {"--pids", "10"}, {"--cpus", "0.5"}, {"--cpu-limit", "1s"},
             {"--net-allow", "127.0.0.1/32:80", "--net", "host"}}) {
        Output refused = user.husk(sandbox_args(sb.id("rl-refused"), flag, {"true"}));
        INFO(flag[0] << ": " << refused.describe());
        CHECK(refused.exit_code == 2);  // refused before anything existed (husk(8) EXIT STATUS)
        CHECK_THAT(refused.err, Catch::Contains("husk runs without root and found no delegated cgroup v2 subtree"));
    }
    // Without root the user namespace is what builds the sandbox: --no-userns is refused.
    Output no_userns = user.husk(sandbox_args(sb.id("rl-nouserns"), {"--no-userns"}, {"true"}));
    INFO(no_userns.describe());
    CHECK(no_userns.exit_code == 2);
    CHECK_THAT(no_userns.err, Catch::Contains("--no-userns: without root the user namespace"));
    check_user_left_nothing(sb, user);
}

TEST_CASE("rootless: cancel and --die-with-parent end the sandbox with nothing left", "[integration][rootless]") {
    Sandbox sb;
    TestUser user(sb, TestUser::Subids::none);
    const std::string verdict_path = user.home() + "/cancel.json";
    Process running = user.spawn_husk(sandbox_args(sb.id("rl-cancel"), {"--verdict", verdict_path, "--kill-grace", "200ms"},
                                                   {"sh", "-c", "sleep 300 & sleep 300 & echo started; wait"}));
    wait_for_start(running);
    REQUIRE(running.current_out() == "started\n");
    ::kill(running.pid(), SIGTERM);
    Output out = running.wait();
    INFO(out.describe());
    Json verdict = Json::parse(read_file(verdict_path));
    CHECK(verdict["exit"]["reason"].str() == "killed");

    // The caller dies of SIGKILL: the sandbox goes with it (setpriv execs husk: the sh below is its parent).
    Process caller = user.spawn({"/bin/sh", "-c", paths().husk + " sandbox --die-with-parent -- sh -c 'sleep 300 & "
                                                  "echo started; wait' & wait"});
    wait_for_start(caller);
    REQUIRE(caller.current_out() == "started\n");
    ::kill(caller.pid(), SIGKILL);
    caller.wait();
    check_user_left_nothing(sb, user);
}

TEST_CASE("rootless: husk's binary cannot be written from the caller's containers (CVE-2019-5736)",
          "[integration][rootless]") {
    Sandbox sb;
    TestUser user(sb, TestUser::Subids::none);
    // Root's binary: no id of the caller may write it, so husk runs from it as it is.
    Process from_root = user.spawn_husk(sandbox_args(sb.id("rl-exe"), {}, {"sh", "-c", "echo started; sleep 300"}));
    wait_for_start(from_root);
    char target[4096] = {};
    REQUIRE(::readlink(("/proc/" + std::to_string(from_root.pid()) + "/exe").c_str(), target, sizeof target - 1) > 0);
    CHECK(std::string(target) == paths().husk);
    ::kill(from_root.pid(), SIGTERM);
    from_root.wait();

    // The caller's own copy: its containers' ids could write it, so husk re-executes from a sealed copy in
    // memory, which nobody can write, not even the caller.
    const std::string copy = user.home() + "/husk";
    REQUIRE(std::system(("cp " + paths().husk + " " + copy + " && chown " + std::to_string(user.uid()) + " " + copy)
                            .c_str()) == 0);
    Process from_copy = user.spawn({copy, "sandbox", "--", "sh", "-c", "echo started; sleep 300"});
    wait_for_start(from_copy);
    REQUIRE(from_copy.current_out() == "started\n");
    const std::string exe = "/proc/" + std::to_string(from_copy.pid()) + "/exe";
    std::fill(std::begin(target), std::end(target), '\0');
    REQUIRE(::readlink(exe.c_str(), target, sizeof target - 1) > 0);
    CHECK_THAT(std::string(target), Catch::StartsWith("/memfd:husk"));
    Output write = user.run({"/bin/sh", "-c", "echo x >> " + exe});
    INFO(write.describe());
    CHECK(write.exit_code != 0);
    ::kill(from_copy.pid(), SIGTERM);
    from_copy.wait();
    check_user_left_nothing(sb, user);
}

TEST_CASE("rootless: one user cannot reach another's containers", "[integration][rootless]") {
    Sandbox sb;
    TestUser owner(sb, TestUser::Subids::none);
    const std::string id = sb.id("rl-owner");
    Process running = owner.spawn_husk(sandbox_args(id, {}, {"sh", "-c", "echo started; sleep 300"}));
    wait_for_start(running);
    REQUIRE(running.current_out() == "started\n");
    Sandbox other_sb;
    TestUser other(other_sb, TestUser::Subids::none);
    for (const std::vector<std::string>& verb : std::vector<std::vector<std::string>>{
             {"state", id}, {"kill", id, "KILL"}, {"delete", "--force", id}, {"exec", id, "true"}}) {
        std::vector<std::string> args = {"--root", owner.state_root()};
        args.insert(args.end(), verb.begin(), verb.end());
        Output tried = other.husk(args);
        INFO(verb[0] << ": " << tried.describe());
        CHECK(tried.exit_code != 0);
    }
    // Unharmed: still running, and the owner sees it.
    Output state = owner.husk({"state", id});
    INFO(state.describe());
    CHECK(Json::parse(state.out)["status"].str() == "running");
    ::kill(running.pid(), SIGTERM);
    running.wait();
    check_user_left_nothing(sb, owner);
    check_user_left_nothing(other_sb, other);
}

TEST_CASE("rootless: a bundle's lifecycle and husk exec as an unprivileged user", "[integration][rootless]") {
    Sandbox sb;
    TestUser user(sb, TestUser::Subids::none);
    Bundle bundle = sb.bundle();
    // What `runc spec --rootless` changes: a user namespace mapping the caller as root, no linux.resources, no
    // gid=5 for devpts (not mapped), no cgroup mount.
    Json& linux = bundle.config["linux"];
    linux.erase("resources");
    linux["namespaces"].push_back(Json::object({{"type", "user"}}));
    linux["uidMappings"] = Json::array({Json::object({{"containerID", 0}, {"hostID", user.uid()}, {"size", 1}})});
    linux["gidMappings"] = Json::array({Json::object({{"containerID", 0}, {"hostID", user.gid()}, {"size", 1}})});
    Json mounts = Json::array();
    for (const Json& mount : bundle.config["mounts"].items()) {
        if (mount["destination"].str() == "/sys/fs/cgroup") continue;
        Json kept = mount;
        if (kept.contains("options")) {
            Json options = Json::array();
            for (const Json& option : mount["options"].items())
                if (option.str() != "gid=5") options.push_back(option);
            kept["options"] = options;
        }
        mounts.push_back(kept);
    }
    bundle.config["mounts"] = mounts;
    bundle.config["process"]["args"] = Json::strings({"/probe", "sleep", "300"});
    bundle.write();
    const std::string id = sb.id("rl-bundle");
    Output created = user.husk({"create", "--bundle", bundle.dir, id});
    INFO(created.describe());
    REQUIRE(created.exit_code == 0);
    CHECK(user.husk({"start", id}).exit_code == 0);
    Json state = Json::parse(user.husk({"state", id}).out);
    CHECK(state["status"].str() == "running");
    // husk exec joins the container's namespaces, its user namespace first.
    Output exec = user.husk({"exec", id, "/probe", "report"});
    INFO(exec.describe());
    REQUIRE(exec.exit_code == 0);
    Json report = last_json_line(exec.out);
    CHECK(report["uid"].num() == 0);
    Output killed = user.husk({"kill", id, "KILL"});
    CHECK(killed.exit_code == 0);
    Json stopped = Json::parse(user.husk({"state", id}).out);
    for (int i = 0; i < 100 && stopped["status"].str() != "stopped"; ++i) {
        std::this_thread::sleep_for(Ms(50));
        stopped = Json::parse(user.husk({"state", id}).out);
    }
    CHECK(stopped["status"].str() == "stopped");
    CHECK(user.husk({"delete", id}).exit_code == 0);
    check_user_left_nothing(sb, user);
}

TEST_CASE("rootless: the Python module's own tests pass as an unprivileged user", "[integration][rootless]") {
    Sandbox sb;
    TestUser user(sb, TestUser::Subids::none);
    // The source tree holds bundles/build-rootfs.sh (HUSK_TEST_ROOTFS_SCRIPT) and bindings/python beside it.
    const std::string script = paths().rootfs_script;
    const std::string source = script.substr(0, script.rfind("/bundles/"));
    SpawnOptions options;
    options.timeout = Ms(300000);
    // Every temporary file below the user's home, which goes with the test.
    options.env = {"HUSK=" + paths().husk, "HUSK_ROOTFS_SCRIPT=" + script, "PYTHONDONTWRITEBYTECODE=1",
                   "TMPDIR=" + user.home()};
    Output pytest = user.run({"/usr/bin/python3", "-m", "pytest", "-q", "-p", "no:cacheprovider",
                              source + "/bindings/python/tests"}, options);
    INFO(pytest.describe());
    CHECK(pytest.exit_code == 0);
    CHECK_THAT(pytest.out, Catch::Contains(" passed"));
    CHECK_THAT(pytest.out, !Catch::Contains("failed"));
    check_user_left_nothing(sb, user);
}

TEST_CASE("rootless: a tenant and its ledger are the user's own", "[integration][rootless]") {
    Sandbox sb;
    TestUser user(sb, TestUser::Subids::none);
    REQUIRE(user.husk({"tenant", "set", "team", "--runs", "1", "--wall", "1h"}).exit_code == 0);
    Output first = user.husk(sandbox_args(sb.id("rl-tenant"), {"--tenant", "team"}, {"true"}));
    INFO(first.describe());
    CHECK(first.exit_code == 0);
    // The run ceiling holds across runs: the second is refused.
    Output second = user.husk(sandbox_args(sb.id("rl-tenant"), {"--tenant", "team"}, {"true"}));
    INFO(second.describe());
    CHECK(second.exit_code == 2);
    CHECK_THAT(second.err, Catch::Contains("runs"));
    // The ledger is in the user's state root, the user's alone.
    struct stat st {};
    REQUIRE(::stat((user.state_root() + "/tenants/team.ledger").c_str(), &st) == 0);
    CHECK(st.st_uid == user.uid());
    CHECK(::stat((sb.root() + "/tenants/team.ledger").c_str(), &st) != 0);
    check_user_left_nothing(sb, user);
}

TEST_CASE("rootless: the seccomp program the first sandbox compiled is kept in the user's state root, and a "
          "cache file others may write is compiled over", "[integration][rootless][seccomp]") {
    Sandbox sb;
    TestUser user(sb, TestUser::Subids::none);
    const std::string cache = user.state_root() + "/.seccomp-cache";
    const std::string script = "for s in unshare-user keyctl bpf getpid; do /probe syscall $s; done";
    // What the default profile denies, as the program sees it: the same in every run, cached or not.
    auto run_denials = [&](const std::string& name) {
        Output out;
        Json verdict = user_verdict(user, sb.id(name), {"--bind", paths().probe + ":/probe"}, {"sh", "-c", script}, &out);
        INFO(out.describe());
        REQUIRE(out.exit_code == 0);
        CHECK(verdict["security"]["seccomp"].str() == "filter");
        std::vector<std::string> printed = lines(out.out);
        REQUIRE(printed.size() == 4);
        CHECK(Json::parse(printed[0])["errno"].num() == EPERM);
        CHECK(Json::parse(printed[1])["errno"].num() == EPERM);
        CHECK(Json::parse(printed[2])["errno"].num() == EPERM);
        CHECK(Json::parse(printed[3])["errno"].num() == 0);
    };
    // The one file in the cache, with its mode checked: the user's own, 0600, in a 0700 directory.
    auto cache_file = [&]() {
        struct stat st {};
        REQUIRE(::stat(cache.c_str(), &st) == 0);
        CHECK((st.st_mode & 07777) == 0700);
        CHECK(st.st_uid == user.uid());
        std::vector<std::string> names;
        if (DIR* d = ::opendir(cache.c_str())) {
            while (dirent* e = ::readdir(d))
                if (std::string_view(e->d_name) != "." && std::string_view(e->d_name) != "..") names.push_back(e->d_name);
            ::closedir(d);
        }
        REQUIRE(names.size() == 1);
        const std::string file = cache + "/" + names[0];
        REQUIRE(::stat(file.c_str(), &st) == 0);
        CHECK(st.st_uid == user.uid());
        return std::make_pair(file, st);
    };
    run_denials("cache-first");  // compiles and stores
    auto [file, stored] = cache_file();
    CHECK((stored.st_mode & 07777) == 0600);
    run_denials("cache-second");  // loads: the file is not written again
    auto [same_file, loaded] = cache_file();
    CHECK(same_file == file);
    CHECK(loaded.st_ino == stored.st_ino);
    // A file others may write is not trusted: the next run compiles and replaces it.
    REQUIRE(::chmod(file.c_str(), 0666) == 0);
    run_denials("cache-untrusted");
    auto [replaced_file, replaced] = cache_file();
    CHECK(replaced_file == file);
    CHECK(replaced.st_ino != stored.st_ino);
    CHECK((replaced.st_mode & 07777) == 0600);
    check_user_left_nothing(sb, user);
}
