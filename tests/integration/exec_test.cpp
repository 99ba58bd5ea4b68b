// husk exec: a process in a running container joins init's namespaces, root and cgroup, gets the config's
// security, sees only its own fds, and ends the way clients expect (exit status in the foreground, a child of
// the caller's subreaper with --detach). Refusals use runc's words.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <set>

#include "exec_support.hpp"

using namespace husk::test;
using Catch::Matchers::Contains;

TEST_CASE("an exec'd process is in init's namespaces, root and cgroup, and sees only fds 0-2",
          "[integration][exec]") {
    Sandbox sb;
    Bundle b = sb.bundle();
    pid_t init = 0;
    std::string id = start_sleeper(sb, b, "ns", &init);
    // Host fds of the caller (one a directory: the CVE-2024-21626 handle) must not reach the process.
    int host_dir = open(sb.dir().c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
    SpawnOptions with_fds;
    with_fds.extra_fds = {host_dir, host_dir};
    Output out = sb.husk({"exec", id, "/probe", "report"}, with_fds);
    close(host_dir);
    require_ok(out);
    Json r = last_json_line(out.out);
    INFO(r.dump());
    for (const auto& [ns, link] : namespaces_of(init)) CHECK(r["ns"][ns].str() == link);
    std::set<long long> fds;
    for (const Json& fd : r["fds"].items()) fds.insert(fd["fd"].num());
    CHECK(fds == std::set<long long>{0, 1, 2});
    CHECK(r["cwd"].str() == "/");
    CHECK(r["hostname"].str() == "husk-test");
    // The same cgroup as init (the container's, seen from the host's cgroup namespace).
    Json st = state_record(sb, id);
    CHECK_THAT(r["cgroup"].str(), Contains("0::" + st["cgroupPath"].str()));
    // The config's security: no_new_privs, its capabilities, its rlimits.
    CHECK(r["no_new_privs"].boolean());
    CHECK(r["caps"]["eff"].str() == "0000000020000420");
    CHECK(r["caps"]["bnd"].str() == "0000000020000420");
    CHECK(r["rlimits"]["NOFILE"].dump() == "[1024,1024]");
    stop_and_delete(sb, id);
}

TEST_CASE("exec mirrors the process's exit status: its code, or 128 + the signal", "[integration][exec]") {
    Sandbox sb;
    Bundle b = sb.bundle();
    std::string id = start_sleeper(sb, b, "status");
    CHECK(sb.husk({"exec", id, "/probe", "exit", "0"}).exit_code == 0);
    CHECK(sb.husk({"exec", id, "/probe", "exit", "3"}).exit_code == 3);
    CHECK(sb.husk({"exec", id, "/probe", "signal-self", "9"}).exit_code == 128 + 9);
    // stdio passes through: stdin in, stdout out.
    SpawnOptions input;
    input.stdin_data = "through stdin\n";
    Output cat = sb.husk({"exec", id, "/bin/cat"}, input);
    require_ok(cat);
    CHECK(cat.out == "through stdin\n");
    // A missing executable fails exec with runc's text, which containerd and podman map to "not found".
    Output missing = sb.husk({"--log", sb.dir() + "/log.json", "--log-format", "json", "exec", id, "/nonexistent"});
    CHECK(missing.exit_code == 255);
    CHECK_THAT(missing.err, Contains("exec: \"/nonexistent\": stat /nonexistent: no such file or directory"));
    CHECK_THAT(read_file(sb.dir() + "/log.json"), Contains("\"level\":\"error\""));
    Output not_in_path = sb.husk({"exec", id, "no-such-command"});
    CHECK_THAT(not_in_path.err, Contains("executable file not found in $PATH"));
    stop_and_delete(sb, id);
}

TEST_CASE("exec refuses what runc refuses, in runc's words", "[integration][exec]") {
    Sandbox sb;
    Output unknown = sb.husk({"exec", sb.id("nothing"), "/bin/true"});
    CHECK(unknown.exit_code == 255);
    CHECK_THAT(unknown.err, Contains("container does not exist"));

    Bundle b = sb.bundle();
    std::string id = start_sleeper(sb, b, "refuse");
    struct Case {
        std::vector<std::string> flags;
        std::string says;
    };
    const Case cases[] = {
        {{"--apparmor", "x"}, "AppArmor"},
        {{"--process-label", "x"}, "SELinux"},
        {{"--detach", "--tty"}, "cannot allocate tty if husk will detach without setting console socket"},
        {{"--cgroup", "../escape"}, "must not leave the container's cgroup"},
        {{"--cgroup", "/abs"}, "relative"},
        {{"--cgroup", "missing"}, "--cgroup"},
        {{"--user", "nobody"}, "--user"},
    };
    for (const Case& c : cases) {
        std::vector<std::string> argv = {"exec"};
        argv.insert(argv.end(), c.flags.begin(), c.flags.end());
        argv.insert(argv.end(), {id, "/bin/true"});
        Output out = sb.husk(argv);
        INFO(c.flags.front() << ": " << out.describe());
        CHECK(out.exit_code == 255);
        CHECK_THAT(out.err, Contains(c.says));
    }
    Output no_args = sb.husk({"exec", id});
    CHECK_THAT(no_args.err, Contains("exec args cannot be empty"));

    require_ok(sb.husk({"pause", id}));
    Output paused = sb.husk({"exec", id, "/bin/true"});
    CHECK(paused.exit_code == 255);
    CHECK_THAT(paused.err, Contains("cannot exec in a paused container (use --ignore-paused to override)"));
    // With --ignore-paused the process starts frozen, like runc's: exec returns once it was resumed.
    Process waiting = sb.spawn_husk({"exec", "--ignore-paused", id, "/probe", "exit", "4"});
    std::this_thread::sleep_for(Ms(500));
    require_ok(sb.husk({"resume", id}));
    CHECK(waiting.wait().exit_code == 4);

    require_ok(sb.husk({"kill", id, "KILL"}));
    wait_for_exit(sb, id);
    Output stopped = sb.husk({"exec", id, "/bin/true"});
    CHECK(stopped.exit_code == 255);
    CHECK_THAT(stopped.err, Contains("cannot exec in a stopped container"));
    delete_and_check(sb, id);
}

TEST_CASE("exec --detach returns once the process runs, and the caller's subreaper reaps it",
          "[integration][exec][subreaper]") {
    Sandbox sb;
    Bundle b = sb.bundle();
    std::string id = start_sleeper(sb, b, "detach");
    std::string pid_file = sb.dir() + "/exec.pid";
    Output caller = sb.command({paths().subreaper_caller, "--exec", paths().husk, sb.root(), pid_file, id,
                                "/probe", "exit", "7"});
    INFO(caller.describe());
    REQUIRE(caller.exit_code == 0);
    Json result;
    for (const std::string& line : lines(caller.out))
        if (line.find("\"exited\"") != std::string::npos) result = Json::parse(line);
    CHECK(result["exited"].boolean());
    CHECK(result["code"].num() == 7);
    CHECK(result["pid"].num() == std::stoll(read_file(pid_file)));
    stop_and_delete(sb, id);
}

TEST_CASE("kill --all and delete --force reach exec'd processes", "[integration][exec]") {
    std::string how = GENERATE(std::string("kill --all"), std::string("delete --force"));
    Sandbox sb;
    Bundle b = sb.bundle();
    std::string id = start_sleeper(sb, b, "reach");
    std::string pid_file = sb.dir() + "/exec.pid";
    require_ok(sb.husk({"exec", "--detach", "--pid-file", pid_file, id, "/probe", "sleep", "120"}));
    pid_t exec_pid = static_cast<pid_t>(std::stol(read_file(pid_file)));
    sb.track_pid(exec_pid);
    CHECK(process_alive(exec_pid));
    if (how == "kill --all") {
        require_ok(sb.husk({"kill", "--all", id, "KILL"}));
        CHECK(wait_gone(exec_pid));
        wait_for_exit(sb, id);
        delete_and_check(sb, id);
    } else {
        require_ok(sb.husk({"delete", "--force", id}));
        CHECK(wait_gone(exec_pid));
        check_nothing_left(sb);
    }
}

TEST_CASE("exec joins the user, cgroup and time namespaces of init too", "[integration][exec][inside]") {
    Sandbox sb;
    Bundle b = sb.bundle();
    for (const char* type : {"user", "cgroup", "time"})
        b.config["linux"]["namespaces"].push_back(Json::object({{"type", type}}));
    Json mapping = Json::array({Json::object({{"containerID", 0}, {"hostID", 100000}, {"size", 65536}})});
    b.config["linux"]["uidMappings"] = mapping;
    b.config["linux"]["gidMappings"] = mapping;
    b.config["linux"]["timeOffsets"] = Json::object({{"monotonic", Json::object({{"secs", 86400}, {"nanosecs", 0}})}});
    Json mounts = Json::array();  // a cgroup mount needs a cgroup namespace owned by the user namespace
    for (const Json& m : b.config["mounts"].items())
        if (m["destination"].str() != "/sys/fs/cgroup") mounts.push_back(m);
    b.config["mounts"] = mounts;
    pid_t init = 0;
    std::string id = start_sleeper(sb, b, "userns", &init);
    Output out = sb.husk({"exec", id, "/probe", "report"});
    require_ok(out);
    Json r = last_json_line(out.out);
    INFO(r.dump());
    for (const auto& [ns, link] : namespaces_of(init)) CHECK(r["ns"][ns].str() == link);
    CHECK(r["uid"].num() == 0);
    // The container's cgroup is the root of its cgroup namespace (the last line; v1 lines come first on a
    // hybrid host).
    CHECK(lines(r["cgroup"].str()).back() == "0::/");
    stop_and_delete(sb, id);
}

TEST_CASE("exec into a container without a cgroup (--cgroup-manager disabled) works", "[integration][exec]") {
    Sandbox sb;
    Bundle b = sb.bundle();
    b.config["linux"].erase("resources");
    b.config["process"]["args"] = Json::strings({"/probe", "sleep", "120"});
    std::string id = sb.id("nocg");
    require_ok(sb.husk({"--cgroup-manager", "disabled", "create", "--bundle", (b.write(), b.dir), id}));
    require_ok(sb.husk({"start", id}));
    sb.track_pid(static_cast<pid_t>(sb.state(id)["pid"].num()));
    Output out = sb.husk({"exec", id, "/probe", "exit", "5"});
    CHECK(out.exit_code == 5);
    Output sub = sb.husk({"exec", "--cgroup", "x", id, "/bin/true"});
    CHECK_THAT(sub.err, Contains("has no cgroup"));
    require_ok(sb.husk({"kill", id, "KILL"}));
    wait_for_exit(sb, id);
    delete_and_check(sb, id);
}

TEST_CASE("exec in the foreground forwards signals to the process", "[integration][exec]") {
    Sandbox sb;
    Bundle b = sb.bundle();
    std::string id = start_sleeper(sb, b, "signal");
    Process exec = sb.spawn_husk({"exec", id, "/probe", "sleep", "60"});
    auto deadline = std::chrono::steady_clock::now() + Ms(10000);
    while (exec.current_out().find("sleeping") == std::string::npos && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(Ms(20));
    REQUIRE(exec.current_out().find("sleeping") != std::string::npos);
    REQUIRE(kill(exec.pid(), SIGTERM) == 0);
    CHECK(exec.wait().exit_code == 128 + SIGTERM);
    stop_and_delete(sb, id);
}

TEST_CASE("the wall-time limit's cgroup kill reaches exec'd processes", "[integration][exec][timeout]") {
    Sandbox sb;
    Bundle b = sb.bundle();
    share_host_pid_namespace(b.config);  // so the exec'd process does not die with init's pid namespace
    b.config["process"]["args"] = Json::strings({"/probe", "ignore-term", "sleep", "120"});
    std::string id = sb.id("timeout");
    create_and_start(sb, b, id, {"--timeout", "2s", "--kill-grace", "0"});
    std::string pid_file = sb.dir() + "/exec.pid";
    require_ok(sb.husk({"exec", "--detach", "--pid-file", pid_file, id, "/probe", "ignore-term", "sleep", "120"}));
    pid_t exec_pid = static_cast<pid_t>(std::stol(read_file(pid_file)));
    sb.track_pid(exec_pid);
    Json st = wait_for_exit(sb, id, Ms(20000));
    CHECK(st["husk"]["exit"]["reason"].str() == "timeout");
    CHECK(wait_gone(exec_pid));
    delete_and_check(sb, id);
}
