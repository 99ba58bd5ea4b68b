// The network policy (run.husk.net-allow, --net-allow; docs/network-policy.md) seen from inside containers:
// each test starts servers in a network namespace of its own (`probe serve` under unshare --net: TCP and UDP
// on 127.0.0.1:7001, 127.0.0.2:7002, [::1]:7003, UDP 127.0.0.1:53), runs the container joined to it, and
// checks both what the container's connect/sendto returned and what the servers received.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <csignal>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "harness.hpp"
#include "monitor_support.hpp"
#include "sandbox_support.hpp"

using namespace husk::test;
using Catch::Matchers::Contains;

namespace {

// util-linux's tool, wherever this system has it (the VM stages it under /usr/local/bin).
std::string tool(const std::string& name) {
    for (const char* dir : {"/usr/bin/", "/usr/local/bin/", "/bin/", "/usr/sbin/"})
        if (::access((dir + name).c_str(), X_OK) == 0) return dir + name;
    FAIL("no " << name << " on this system");
    return "";
}

// The servers' network namespace, held by the server process; it goes when the process is killed.
class TestNetwork {
public:
    explicit TestNetwork(const Sandbox& sb)
        : server_(spawn({tool("unshare"), "--net", paths().probe, "serve"}, long_lived(), sb.dir() + "/io/servers")) {
        // Waits for the servers' own word that they listen (no sleep that could lose a race).
        for (int i = 0; i < 1000 && server_.current_out().find("{\"ready\":true}") == std::string::npos; ++i)
            std::this_thread::sleep_for(Ms(10));
        INFO(server_.current_out());
        REQUIRE(server_.current_out().find("{\"ready\":true}") != std::string::npos);
        path_ = "/proc/" + std::to_string(server_.pid()) + "/ns/net";
    }
    const std::string& path() const { return path_; }
    // Waits until a server reports `got` at `at` ("127.0.0.1:7001"), protocol "tcp" or "udp".
    bool received(const std::string& protocol, const std::string& at, const std::string& got, Ms timeout = Ms(10000)) {
        const std::string line = "{\"server\":\"" + protocol + "\",\"at\":\"" + at + "\",\"got\":\"" + got + "\"}";
        for (auto deadline = std::chrono::steady_clock::now() + timeout;; std::this_thread::sleep_for(Ms(10))) {
            if (server_.current_out().find(line) != std::string::npos) return true;
            if (std::chrono::steady_clock::now() > deadline) return false;
        }
    }
    // True when nothing ever reached `at` with `got`: called after an operation known to have ended.
    bool never_received(const std::string& at, const std::string& got) const {
        return server_.current_out().find("\"at\":\"" + at + "\",\"got\":\"" + got + "\"") == std::string::npos;
    }
    std::string log() const { return server_.current_out(); }

private:
    static SpawnOptions long_lived() {
        SpawnOptions options;
        options.timeout = Ms(600000);
        return options;
    }
    Process server_;
    std::string path_;
};

void join_network(Json& config, const std::string& path) {
    for (Json& ns : config["linux"]["namespaces"].items())
        if (ns["type"].str() == "network") ns["path"] = path;
}

// The probe's result lines by what they did: "tcp 127.0.0.1:7001" → errno, "socket raw" → errno.
std::map<std::string, long long> results(const std::string& out) {
    std::map<std::string, long long> by_op;
    for (const std::string& line : lines(out)) {
        if (line.empty() || line[0] != '{') continue;
        Json j = Json::parse(line);
        if (j.contains("op")) by_op[j["op"].str() + " " + j["to"].str()] = j["errno"].num();
        else if (j.contains("socket")) by_op["socket " + j["socket"].str()] = j["errno"].num();
    }
    return by_op;
}

std::string probe_script(const std::vector<std::string>& commands) {
    std::string script;
    for (const std::string& command : commands) script += "/probe " + command + "; ";
    return script;
}

// Runs the bundle in the foreground, which must exit 0, and returns the probe's results.
std::map<std::string, long long> run_probes(Sandbox& sb, const Bundle& b, const std::string& name) {
    Output run = sb.run(b, sb.id(name));
    INFO(run.describe());
    REQUIRE(run.exit_code == 0);
    return results(run.out);
}

Bundle policy_bundle(Sandbox& sb, const TestNetwork& net, const std::string& allow, const std::string& script) {
    Bundle b = sb.bundle();
    join_network(b.config, net.path());
    if (!allow.empty()) b.config["annotations"] = Json::object({{"run.husk.net-allow", allow}});
    b.config["process"]["args"] = Json::strings({"/bin/sh", "-c", script});
    return b;
}

}  // namespace

TEST_CASE("with run.husk.net-allow a container reaches exactly its allowed TCP and UDP servers, others get EPERM",
          "[integration][net-allow]") {
    Sandbox sb;
    TestNetwork net(sb);
    Bundle b = policy_bundle(sb, net, "127.0.0.1/32:7001,[::1/128]:7003",
                             probe_script({"net tcp 127.0.0.1 7001 tcp-ok", "net udp 127.0.0.1 7001 udp-ok",
                                           "net tcp 127.0.0.2 7002 tcp-leak", "net udp 127.0.0.2 7002 udp-leak",
                                           "net udp-connect 127.0.0.2 7002 udpc-leak", "net udp 127.0.0.1 53 dns-leak",
                                           "net tcp ::1 7003 tcp6-ok", "net udp ::1 7003 udp6-ok",
                                           "net tcp ::ffff:127.0.0.1 7001 mapped-ok",
                                           "net tcp ::ffff:127.0.0.2 7002 mapped-leak",
                                           "net udp ::ffff:127.0.0.2 7002 mapped-udp-leak",
                                           "net fastopen 127.0.0.2 7002 tfo-leak"}));
    INFO(net.log());
    auto r = run_probes(sb, b, "allow");
    CHECK(r.at("tcp 127.0.0.1:7001") == 0);
    CHECK(r.at("udp 127.0.0.1:7001") == 0);
    CHECK(r.at("tcp ::1:7003") == 0);
    CHECK(r.at("udp ::1:7003") == 0);
    CHECK(r.at("tcp ::ffff:127.0.0.1:7001") == 0);
    CHECK(r.at("tcp 127.0.0.2:7002") == EPERM);
    CHECK(r.at("udp 127.0.0.2:7002") == EPERM);
    CHECK(r.at("udp-connect 127.0.0.2:7002") == EPERM);
    CHECK(r.at("udp 127.0.0.1:53") == EPERM);
    CHECK(r.at("tcp ::ffff:127.0.0.2:7002") == EPERM);
    CHECK(r.at("udp ::ffff:127.0.0.2:7002") == EPERM);
    CHECK(r.at("fastopen 127.0.0.2:7002") == EPERM);
    CHECK(net.received("tcp", "127.0.0.1:7001", "tcp-ok"));
    CHECK(net.received("udp", "127.0.0.1:7001", "udp-ok"));
    CHECK(net.received("tcp", "::1:7003", "tcp6-ok"));
    CHECK(net.received("udp", "::1:7003", "udp6-ok"));
    CHECK(net.received("tcp", "127.0.0.1:7001", "mapped-ok"));
    for (const char* leak : {"tcp-leak", "udp-leak", "udpc-leak", "dns-leak", "mapped-leak", "mapped-udp-leak", "tfo-leak"})
        CHECK(net.never_received(leak == std::string("dns-leak") ? "127.0.0.1:53" : "127.0.0.2:7002", leak));
    check_nothing_left(sb);
}

TEST_CASE("with a policy DNS goes out only when allowed, and none denies everything", "[integration][net-allow]") {
    Sandbox sb;
    TestNetwork net(sb);
    auto allowed = run_probes(sb, policy_bundle(sb, net, "127.0.0.1/32:53", probe_script({"net udp 127.0.0.1 53 query"})),
                              "dns");
    CHECK(allowed.at("udp 127.0.0.1:53") == 0);
    CHECK(net.received("udp", "127.0.0.1:53", "query"));

    auto r = run_probes(sb, policy_bundle(sb, net, "none", probe_script({"net udp 127.0.0.1 53 none-dns",
                                                                          "net tcp 127.0.0.1 7001 none-tcp",
                                                                          "net tcp ::1 7003 none-tcp6"})),
                        "none");
    CHECK(r.at("udp 127.0.0.1:53") == EPERM);
    CHECK(r.at("tcp 127.0.0.1:7001") == EPERM);
    CHECK(r.at("tcp ::1:7003") == EPERM);
    check_nothing_left(sb);
}

TEST_CASE("with a policy a container cannot make raw, ping or UDP-Lite sockets, which it can without one",
          "[integration][net-allow]") {
    Sandbox sb;
    TestNetwork net(sb);
    const std::string script = probe_script({"net socket tcp", "net socket udp", "net socket ping", "net socket udplite"});
    // Ping sockets for every group in the test namespace (a net sysctl of a namespace that is not the host's).
    auto with_ping = [&](Bundle b) {
        b.config["linux"]["sysctl"] = Json::object({{"net.ipv4.ping_group_range", "0 2147483647"}});
        return b;
    };
    auto without = run_probes(sb, with_ping(policy_bundle(sb, net, "", script)), "open");
    CHECK(without.at("socket ping") == 0);
    CHECK(without.at("socket udplite") == 0);

    auto with = run_probes(sb, with_ping(policy_bundle(sb, net, "127.0.0.1/32", script)), "policed");
    CHECK(with.at("socket tcp") == 0);
    CHECK(with.at("socket udp") == 0);
    CHECK(with.at("socket ping") == EPERM);
    CHECK(with.at("socket udplite") == EPERM);
    check_nothing_left(sb);
}

TEST_CASE("an exec'd process is held to the container's network policy", "[integration][net-allow]") {
    Sandbox sb;
    TestNetwork net(sb);
    Bundle b = policy_bundle(sb, net, "127.0.0.1/32:7001", "exec /probe sleep 60");
    const std::string id = sb.id("exec");
    create_and_start(sb, b, id);
    Output allowed = sb.husk({"exec", id, "/probe", "net", "tcp", "127.0.0.1", "7001", "exec-ok"});
    Output denied = sb.husk({"exec", id, "/probe", "net", "tcp", "127.0.0.2", "7002", "exec-leak"});
    INFO(allowed.describe());
    INFO(denied.describe());
    CHECK(results(allowed.out).at("tcp 127.0.0.1:7001") == 0);
    CHECK(results(denied.out).at("tcp 127.0.0.2:7002") == EPERM);
    CHECK(net.received("tcp", "127.0.0.1:7001", "exec-ok"));
    CHECK(net.never_received("127.0.0.2:7002", "exec-leak"));

    // An exec asking for CAP_NET_RAW could open AF_PACKET sockets past the hooks: refused.
    Output raw = sb.husk({"exec", "--cap", "CAP_NET_RAW", id, "/probe", "report"});
    INFO(raw.describe());
    CHECK(raw.exit_code != 0);
    CHECK_THAT(raw.err, Contains("has CAP_NET_RAW"));
    sb.husk({"kill", id, "KILL"});
    wait_for_exit(sb, id);
    delete_and_check(sb, id);
}

TEST_CASE("husk sandbox --net host --net-allow reaches exactly its allowed services", "[integration][net-allow]") {
    Sandbox sb;
    TestNetwork net(sb);
    // husk itself runs in the servers' namespace: there --net host is that namespace.
    const std::string script = probe_script({"net tcp 127.0.0.1 7001 sandbox-ok", "net udp 127.0.0.1 53 sandbox-dns",
                                             "net tcp 127.0.0.2 7002 sandbox-leak"});
    std::vector<std::string> args = {tool("nsenter"), "--net=" + net.path(), paths().husk, "--root", sb.root()};
    for (const std::string& arg : sandbox_args(sb.id("sandbox"),
                                               {"--net", "host", "--net-allow", "127.0.0.1/32:7001", "--net-allow",
                                                "127.0.0.1/32:53", "--bind", paths().probe + ":/probe"},
                                               {"/bin/sh", "-c", script}))
        args.push_back(arg);
    Output run = sb.command(args);
    INFO(run.describe());
    REQUIRE(run.exit_code == 0);
    auto r = results(run.out);
    CHECK(r.at("tcp 127.0.0.1:7001") == 0);
    CHECK(r.at("udp 127.0.0.1:53") == 0);
    CHECK(r.at("tcp 127.0.0.2:7002") == EPERM);
    CHECK(net.received("tcp", "127.0.0.1:7001", "sandbox-ok"));
    CHECK(net.received("udp", "127.0.0.1:53", "sandbox-dns"));
    CHECK(net.never_received("127.0.0.2:7002", "sandbox-leak"));
    check_nothing_left(sb);
}

TEST_CASE("a network policy that cannot be enforced is refused and leaves nothing behind", "[integration][net-allow]") {
    Sandbox sb;
    Bundle b = sb.bundle();
    b.config["annotations"] = Json::object({{"run.husk.net-allow", "10.0.0.1/8"}});
    Output bad = sb.create(b, sb.id("bad"));
    INFO(bad.describe());
    CHECK(bad.exit_code == 1);
    CHECK_THAT(bad.err, Contains("annotations[\"run.husk.net-allow\"]: network allow entry \"10.0.0.1/8\""));

    Bundle raw = sb.bundle();
    raw.config["annotations"] = Json::object({{"run.husk.net-allow", "10.0.0.1/32"}});
    add_capability(raw.config, "CAP_NET_RAW");
    Output refused = sb.create(raw, sb.id("raw"));
    INFO(refused.describe());
    CHECK(refused.exit_code == 1);
    CHECK_THAT(refused.err, Contains("process.capabilities.bounding has CAP_NET_RAW"));
    CHECK_THAT(refused.err, Contains("AF_PACKET"));

    Bundle no_cgroup = sb.bundle();
    no_cgroup.config["annotations"] = Json::object({{"run.husk.net-allow", "10.0.0.1/32"}});
    no_cgroup.write();
    Output disabled = sb.husk({"--cgroup-manager", "disabled", "create", "--bundle", no_cgroup.dir, sb.id("nocg")});
    INFO(disabled.describe());
    CHECK(disabled.exit_code == 1);
    CHECK_THAT(disabled.err, Contains("the cgroup manager is disabled"));

    Output flag = sb.husk(sandbox_args(sb.id("flag"), {"--net-allow", "10.0.0.1:99999"}, {"/bin/true"}));
    INFO(flag.describe());
    CHECK(flag.exit_code != 0);
    CHECK_THAT(flag.err, Contains("--net-allow: network allow entry \"10.0.0.1:99999\""));
    check_nothing_left(sb);
}

namespace {

// Runs the bundle with --verdict (and `flags`); returns the verdict and the run's output.
std::pair<Json, Output> run_with_verdict(Sandbox& sb, const Bundle& b, const std::string& name,
                                         std::vector<std::string> flags = {}) {
    const std::string path = sb.dir() + "/" + name + "-verdict.json";
    flags.insert(flags.end(), {"--verdict", path});
    Output run = sb.run(b, sb.id(name), flags);
    INFO(run.describe());
    const std::string text = read_file(path);
    REQUIRE_FALSE(text.empty());
    return {Json::parse(text), run};
}

std::size_t count_received(const TestNetwork& net, const std::string& at, const std::string& got) {
    const std::string needle = "\"at\":\"" + at + "\",\"got\":\"" + got + "\"";
    std::size_t count = 0;
    const std::string log = net.log();
    for (std::size_t at_pos = log.find(needle); at_pos != std::string::npos; at_pos = log.find(needle, at_pos + 1)) ++count;
    return count;
}

}  // namespace

TEST_CASE("run.husk.net-ops lets exactly N allowed operations out; the verdict counts them, denied ones not",
          "[integration][net-allow][net-ops]") {
    Sandbox sb;
    TestNetwork net(sb);
    Bundle b = policy_bundle(sb, net, "127.0.0.1/32:7001",
                             probe_script({"net ops udp 127.0.0.1 7001 5", "net udp 127.0.0.1 7001 sixth",
                                           "net tcp 127.0.0.1 7001 seventh", "net udp 127.0.0.2 7002 denied"}));
    b.config["annotations"]["run.husk.net-ops"] = "5";
    auto [verdict, run] = run_with_verdict(sb, b, "budget");
    INFO(run.describe());
    REQUIRE(run.exit_code == 0);
    CHECK(run.out.find("{\"done\":5,\"errno\":0}") != std::string::npos);
    auto r = results(run.out);
    CHECK(r.at("udp 127.0.0.1:7001") == EPERM);
    CHECK(r.at("tcp 127.0.0.1:7001") == EPERM);
    CHECK(r.at("udp 127.0.0.2:7002") == EPERM);
    CHECK(verdict["exit"]["reason"].str() == "exited");
    // Five let through, two refused past the budget; the denied destination is not counted.
    CHECK(verdict["usage"]["netOps"].num() == 7);
    CHECK(verdict["limits"]["netOps"].num() == 5);
    // Refused: the two past the budget and the one off the allow-list.
    CHECK(factor_count(verdict, "network-denied") == 3);
    REQUIRE(net.received("udp", "127.0.0.1:7001", "x"));
    for (int i = 0; i < 500 && count_received(net, "127.0.0.1:7001", "x") < 5; ++i) std::this_thread::sleep_for(Ms(10));
    CHECK(count_received(net, "127.0.0.1:7001", "x") == 5);
    CHECK(net.never_received("127.0.0.1:7001", "sixth"));
    CHECK(net.never_received("127.0.0.1:7001", "seventh"));
    check_nothing_left(sb);
}

TEST_CASE("--net-ops-kill stops the container at the first operation past the budget, reason network-limit",
          "[integration][net-allow][net-ops]") {
    Sandbox sb;
    TestNetwork net(sb);
    // After the operation past the budget the workload would sleep for a minute: only the kill ends it early.
    Bundle b = policy_bundle(sb, net, "",
                             probe_script({"net ops tcp 127.0.0.1 7001 3", "net tcp 127.0.0.1 7001 over", "sleep 60"}));
    auto [verdict, run] = run_with_verdict(sb, b, "kill", {"--net-allow", "127.0.0.1/32:7001", "--net-ops", "3",
                                                          "--net-ops-kill"});
    INFO(run.describe());
    CHECK(run.exit_code == 137);
    CHECK(run.elapsed < Ms(30000));
    CHECK(verdict["exit"]["reason"].str() == "network-limit");
    CHECK_THAT(verdict["exit"]["detail"].str(), Contains("network-operation budget 3 spent (4 operations tried)"));
    CHECK(verdict["usage"]["netOps"].num() == 4);
    CHECK(factor_count(verdict, "network-denied") == 1);
    CHECK(results(run.out).at("tcp 127.0.0.1:7001") == EPERM);
    CHECK(net.never_received("127.0.0.1:7001", "over"));
    check_nothing_left(sb);
}

TEST_CASE("a policy without a budget still reports its operations in the verdict; --net-ops-kill needs a budget",
          "[integration][net-allow][net-ops]") {
    Sandbox sb;
    TestNetwork net(sb);
    Bundle b = policy_bundle(sb, net, "127.0.0.1/32:7001", probe_script({"net ops udp 127.0.0.1 7001 4"}));
    auto [verdict, run] = run_with_verdict(sb, b, "count");
    REQUIRE(run.exit_code == 0);
    CHECK(verdict["usage"]["netOps"].num() == 4);
    CHECK_FALSE(verdict["limits"].contains("netOps"));
    CHECK_FALSE(verdict.contains("factors"));  // nothing refused, nothing to report

    Output refused = sb.husk(sandbox_args(sb.id("nobudget"), {"--net-ops-kill"}, {"/bin/true"}));
    INFO(refused.describe());
    CHECK(refused.exit_code != 0);
    CHECK_THAT(refused.err, Contains("run.husk.net-ops-kill (--net-ops-kill): needs a budget"));
    check_nothing_left(sb);
}

TEST_CASE("the detached monitor of create + start stops the container past its budget, and state says so",
          "[integration][net-allow][net-ops]") {
    Sandbox sb;
    TestNetwork net(sb);
    Bundle b = policy_bundle(sb, net, "127.0.0.1/32:7001",
                             probe_script({"net ops udp 127.0.0.1 7001 2", "net udp 127.0.0.1 7001 over", "sleep 60"}));
    b.config["annotations"]["run.husk.net-ops"] = "2";
    b.config["annotations"]["run.husk.net-ops-kill"] = "true";
    const std::string id = sb.id("detached");
    // Not create_and_start: the budget may be spent, and the container stopped, before start returns.
    require_ok(sb.create(b, id));
    require_ok(sb.husk({"start", id}));
    Json st = wait_for_exit(sb, id);
    CHECK(st["husk"]["exit"]["reason"].str() == "network-limit");
    CHECK(st["husk"]["exit"]["signal"].num() == SIGKILL);
    CHECK(st["husk"]["usage"]["netOps"].num() == 3);
    CHECK(net.never_received("127.0.0.1:7001", "over"));
    delete_and_check(sb, id);
}
