// husk exec's flags (runc's), --process with the process.json shapes containerd's shim and conmon write,
// a terminal through --console-socket, and the config's seccomp in force in the exec'd process.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <set>

#include "console_socket.hpp"
#include "exec_support.hpp"
#include "seccomp_agent.hpp"

using namespace husk::test;
using Catch::Matchers::Contains;

namespace {

bool has_env(const Json& report, const std::string& entry) {
    for (const Json& e : report["env"].items())
        if (e.str() == entry) return true;
    return false;
}

}  // namespace

TEST_CASE("exec applies runc's flags over the configured process", "[integration][exec]") {
    Sandbox sb;
    Bundle b = sb.bundle();
    b.config["process"]["noNewPrivileges"] = false;
    std::string id = start_sleeper(sb, b, "flags");
    Output plain = sb.husk({"exec", id, "/probe", "report"});
    require_ok(plain);
    CHECK_FALSE(last_json_line(plain.out)["no_new_privs"].boolean());

    int host_dir = open(sb.dir().c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
    SpawnOptions with_fds;
    with_fds.extra_fds = {host_dir, host_dir};
    Output out = sb.husk({"exec", "--cwd", "/tmp", "-e", "FOO=bar", "--env=TERM=dumb", "-u", "1000:1001",
                          "-g", "5", "--additional-gids", "6", "--cap", "CAP_SYS_ADMIN", "--no-new-privs",
                          "--preserve-fds", "1", id, "/probe", "report"}, with_fds);
    close(host_dir);
    require_ok(out);
    Json r = last_json_line(out.out);
    INFO(r.dump());
    CHECK(r["cwd"].str() == "/tmp");
    CHECK(has_env(r, "FOO=bar"));
    CHECK(has_env(r, "TERM=dumb"));  // a later value of a name replaces the config's
    CHECK_FALSE(has_env(r, "TERM=xterm"));
    CHECK(r["uid"].num() == 1000);
    CHECK(r["gid"].num() == 1001);
    CHECK(r["groups"].dump() == "[5,6]");
    CHECK(r["no_new_privs"].boolean());
    CHECK(r["caps"]["bnd"].str() == "0000000020200420");  // + CAP_SYS_ADMIN (21)
    std::set<long long> fds;
    for (const Json& fd : r["fds"].items()) fds.insert(fd["fd"].num());
    CHECK(fds == std::set<long long>{0, 1, 2, 3});  // 3 preserved on purpose, 4 not
    stop_and_delete(sb, id);
}

TEST_CASE("exec --process takes the process.json shapes containerd and podman write", "[integration][exec]") {
    std::string client = GENERATE(std::string("containerd"), std::string("podman"));
    Sandbox sb;
    Bundle b = sb.bundle();
    std::string id = start_sleeper(sb, b, client);
    Json caps = Json::strings({"CAP_CHOWN", "CAP_KILL", "CAP_SETUID", "CAP_SETGID"});
    Json process = Json::object({
        {"user", Json::object({{"uid", 65534}, {"gid", 65534}})},
        {"args", Json::strings({"/probe", "report"})},
        {"env", Json::strings({"PATH=/usr/sbin:/usr/bin:/sbin:/bin", "FOO=bar", sb.marker()})},
        {"cwd", "/tmp"},
        {"capabilities", Json::object({{"bounding", caps}, {"effective", caps}, {"permitted", caps}})},
        {"rlimits", Json::array({Json::object({{"type", "RLIMIT_NOFILE"}, {"hard", 1000}, {"soft", 900}})})},
    });
    if (client == "containerd") {
        process["terminal"] = false;
        process["noNewPrivileges"] = true;
        process["user"]["additionalGids"] = Json::array({Json(65534)});
    } else {
        process["user"]["umask"] = 18;
        process["env"].push_back("container=podman");
        process["oomScoreAdj"] = 500;  // podman --oom-score-adj
    }
    std::string file = sb.dir() + "/process.json";
    write_file(file, process.dump());
    std::string pid_file = sb.dir() + "/exec.pid";
    Output out = sb.husk({"exec", "--process", file, "--detach", "--pid-file=" + pid_file, id});
    require_ok(out);
    pid_t pid = static_cast<pid_t>(std::stol(read_file(pid_file)));
    CHECK(wait_gone(pid));
    Json r = last_json_line(out.current_out());
    INFO(client << ": " << r.dump());
    CHECK(r["uid"].num() == 65534);
    CHECK(r["cwd"].str() == "/tmp");
    CHECK(has_env(r, "FOO=bar"));
    // CHOWN KILL SETGID SETUID; a non-root user keeps none in effect without ambient (capabilities(7))
    CHECK(r["caps"]["bnd"].str() == "00000000000000e1");
    CHECK(r["caps"]["eff"].str() == "0000000000000000");
    CHECK(r["rlimits"]["NOFILE"].dump() == "[900,1000]");
    CHECK(r["no_new_privs"].boolean() == (client == "containerd"));
    CHECK(r["umask"].num() == 18);
    if (client == "podman") CHECK(r["oom_score_adj"].num() == 500);
    stop_and_delete(sb, id);
}

TEST_CASE("exec with a terminal sends the container's pty master over --console-socket", "[integration][exec]") {
    std::string how = GENERATE(std::string("--tty"), std::string("--process"));
    Sandbox sb;
    Bundle b = sb.bundle();
    std::string id = start_sleeper(sb, b, "tty");
    ConsoleSocket console(sb.dir() + "/console.sock");
    std::vector<std::string> argv = {"exec", "--detach", "--console-socket", console.path()};
    if (how == "--tty") {
        argv.insert(argv.end(), {"--tty", id, "/probe", "report"});
    } else {  // containerd's: terminal in process.json, no --tty
        Json process = Json::object({{"terminal", true}, {"args", Json::strings({"/probe", "report"})},
                                     {"env", Json::strings({sb.marker()})}, {"cwd", "/"}});
        write_file(sb.dir() + "/process.json", process.dump());
        argv.insert(argv.end(), {"--process", sb.dir() + "/process.json", id});
    }
    Process exec = sb.spawn_husk(argv);
    int master = console.receive_fd(Ms(10000));
    Output done = exec.wait();
    INFO(done.describe());
    REQUIRE(done.exit_code == 0);
    REQUIRE(master >= 0);
    check_report_on_terminal(master);
    stop_and_delete(sb, id);
}

TEST_CASE("the config's seccomp filter is in force in an exec'd process", "[integration][exec][seccomp]") {
    Sandbox sb;
    Bundle b = sb.bundle();
    Json rule = Json::object({{"names", Json::strings({"mknod", "mknodat"})}, {"action", "SCMP_ACT_ERRNO"},
                              {"errnoRet", EIO}});
    b.config["linux"]["seccomp"] = Json::object({{"defaultAction", "SCMP_ACT_ALLOW"}, {"syscalls", Json::array({rule})}});
    std::string id = start_sleeper(sb, b, "seccomp");
    Output report = sb.husk({"exec", id, "/probe", "report"});
    require_ok(report);
    CHECK(last_json_line(report.out)["seccomp"].num() == 2);
    Output denied = sb.husk({"exec", "--cap", "CAP_MKNOD", id, "/probe", "mknod", "/tmp/node", "c", "1", "3"});
    CHECK(last_json_line(denied.out)["errno"].num() == EIO);
    stop_and_delete(sb, id);
}

TEST_CASE("exec --cgroup runs the process in a sub-cgroup of the container's", "[integration][exec]") {
    Sandbox sb;
    Bundle b = sb.bundle();
    std::string id = start_sleeper(sb, b, "subcg");
    Json st = state_record(sb, id);
    std::string sub = st["cgroupMount"].str() + st["cgroupPath"].str() + "/side";
    REQUIRE(mkdir(sub.c_str(), 0755) == 0);
    Output out = sb.husk({"exec", "--cgroup", "side", id, "/probe", "report"});
    require_ok(out);
    CHECK_THAT(last_json_line(out.out)["cgroup"].str(), Contains("0::" + st["cgroupPath"].str() + "/side\n"));
    stop_and_delete(sb, id);
}

// After --no-pivot (MS_MOVE + chroot) the mount namespace's root is not the container's: exec enters init's
// root directory, not the namespace's.
TEST_CASE("exec into a --no-pivot container lands in the container's root", "[integration][exec][no-pivot]") {
    Sandbox sb;
    Bundle b = sb.bundle();
    b.config["process"]["args"] = Json::strings({"/probe", "sleep", "120"});
    std::string id = sb.id("nopivot");
    create_and_start(sb, b, id, {"--no-pivot"});
    Output out = sb.husk({"exec", id, "/probe", "stat", "/probe"});
    require_ok(out);
    CHECK(last_json_line(out.out).contains("mode"));
    Output cwd = sb.husk({"exec", "--cwd", "/proc", id, "/probe", "report"});
    require_ok(cwd);
    CHECK(last_json_line(cwd.out)["cwd"].str() == "/proc");
    stop_and_delete(sb, id);
}

// process.landlock of the exec'd process (the configured one here), paths resolved inside the container.
TEST_CASE("the process's Landlock ruleset is in force in an exec'd process", "[integration][exec][landlock]") {
    Sandbox sb;
    Bundle b = sb.bundle();
    b.config["process"]["landlock"] = Json::parse(R"({
      "ruleset": {"handledAccessFS": ["write_file", "make_reg"]},
      "rules": {"pathBeneath": [{"allowedAccess": ["write_file", "make_reg"], "paths": ["/tmp"]}]}
    })");
    std::string id = start_sleeper(sb, b, "landlock");
    Output inside = sb.husk({"exec", id, "/probe", "write", "/tmp/inside"});
    CHECK(last_json_line(inside.out)["errno"].num() == 0);
    Output outside = sb.husk({"exec", id, "/probe", "write", "/outside"});
    CHECK(last_json_line(outside.out)["errno"].num() == EACCES);
    stop_and_delete(sb, id);
}

// runc sends an exec'd process's listener too: the agent gets a second container process state, with the
// exec'd pid, and answers its notified calls.
TEST_CASE("SCMP_ACT_NOTIFY hands an exec'd process's listener to listenerPath", "[integration][exec][seccomp]") {
    Sandbox sb;
    Agent agent(sb.dir() + "/agent.sock");
    Bundle b = sb.bundle();
    Json rule = Json::object({{"names", Json::strings({"mknod", "mknodat"})}, {"action", "SCMP_ACT_NOTIFY"}});
    b.config["linux"]["seccomp"] = Json::object({{"defaultAction", "SCMP_ACT_ALLOW"},
                                                 {"listenerPath", sb.dir() + "/agent.sock"},
                                                 {"syscalls", Json::array({rule})}});
    std::string id = start_sleeper(sb, b, "notify");
    std::string pid_file = sb.dir() + "/exec.pid";
    Output out = sb.husk({"exec", "--pid-file", pid_file, id, "/probe", "mknod", "/tmp/node", "c", "1", "3"});
    require_ok(out);
    CHECK(last_json_line(out.out)["errno"].num() == EDOM);
    std::vector<std::string> states = agent.states();
    REQUIRE(states.size() == 2);  // init's at create, then the exec'd process's
    Json state = Json::parse(states[1]);
    INFO(states[1]);
    CHECK(state["pid"].num() == std::stoll(read_file(pid_file)));
    CHECK(state["state"]["id"].str() == id);
    CHECK(state["state"]["status"].str() == "running");
    stop_and_delete(sb, id);
}

TEST_CASE("exec --user into runc's default spec: ambient capabilities the kernel cannot raise are left out with a "
          "warning, as runc does", "[integration][exec]") {
    // `husk spec` (runc's default) lists ambient capabilities without an inheritable set. For a user other than
    // root the kernel cannot raise them (capabilities(7)): the process runs with fewer, never more.
    Sandbox sb;
    Bundle b = sb.bundle();
    b.config["process"]["capabilities"]["ambient"] =
        Json::strings({"CAP_AUDIT_WRITE", "CAP_KILL", "CAP_NET_BIND_SERVICE"});
    std::string id = start_sleeper(sb, b, "ambient");
    Output out = sb.husk({"exec", "--user", "65534:65534", id, "/probe", "report"});
    INFO(out.describe());
    require_ok(out);
    Json r = last_json_line(out.out);
    CHECK(r["uid"].num() == 65534);
    CHECK(r["caps"]["eff"].str() == "0000000000000000");
    for (const char* cap : {"CAP_AUDIT_WRITE", "CAP_KILL", "CAP_NET_BIND_SERVICE"})
        CHECK_THAT(out.err, Contains(std::string("warning: exec ") + id + ": process.capabilities.ambient: " + cap +
                                     " not raised"));
    stop_and_delete(sb, id);
}
