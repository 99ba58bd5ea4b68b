// Inside the container (via the probe): the process's ids, umask, capabilities, rlimits,
// noNewPrivileges, oomScoreAdj, cwd, environment and file descriptors.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <set>

#include "harness.hpp"

using namespace husk::test;
using Catch::Matchers::EndsWith;

namespace {

unsigned long long hex(const Json& value) { return std::stoull(value.str(), nullptr, 16); }

// Bit numbers from linux/capability.h.
constexpr unsigned long long cap_chown = 1ull << 0, cap_kill = 1ull << 5, cap_net_bind_service = 1ull << 10;

std::set<long long> fd_numbers(const Json& report) {
    std::set<long long> fds;
    for (const Json& fd : report["fds"].items()) fds.insert(fd["fd"].num());
    return fds;
}

std::string fd_target(const Json& report, long long number) {
    for (const Json& fd : report["fds"].items())
        if (fd["fd"].num() == number) return fd["target"].str();
    return "";
}

// Files opened by the test and handed to husk as extra fds (3, 4, ...); closed at scope exit.
struct ExtraFiles {
    std::vector<int> fds;
    ExtraFiles(const Sandbox& sb, int count) {
        for (int i = 0; i < count; ++i)
            fds.push_back(open((sb.dir() + "/extra-" + std::to_string(i)).c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644));
    }
    ~ExtraFiles() {
        for (int fd : fds) close(fd);
    }
};

}  // namespace

TEST_CASE("the process runs with the configured uid, gid, additional gids and umask", "[integration][inside]") {
    Sandbox sb;
    Bundle b = sb.bundle();
    b.config["process"]["user"] =
        Json::object({{"uid", 1000}, {"gid", 1000}, {"additionalGids", Json::array({10, 20})}, {"umask", 027}});
    Json r = sb.run_probe(b);
    CHECK(r["uid"].num() == 1000);
    CHECK(r["euid"].num() == 1000);
    CHECK(r["gid"].num() == 1000);
    CHECK(r["egid"].num() == 1000);
    std::set<long long> groups;
    for (const Json& g : r["groups"].items()) groups.insert(g.num());
    CHECK(groups == std::set<long long>{10, 20});
    CHECK(r["umask"].num() == 027);
}

TEST_CASE("a root process has exactly the configured capability sets", "[integration][inside]") {
    Sandbox sb;
    Bundle b = sb.bundle();
    Json caps = Json::strings({"CAP_CHOWN", "CAP_KILL", "CAP_NET_BIND_SERVICE"});
    b.config["process"]["capabilities"] =
        Json::object({{"bounding", caps}, {"effective", caps}, {"permitted", caps}});
    Json r = sb.run_probe(b);
    unsigned long long wanted = cap_chown | cap_kill | cap_net_bind_service;
    CHECK(hex(r["caps"]["bnd"]) == wanted);
    CHECK(hex(r["caps"]["eff"]) == wanted);
    CHECK(hex(r["caps"]["prm"]) == wanted);
    CHECK(hex(r["caps"]["inh"]) == 0);
    CHECK(hex(r["caps"]["amb"]) == 0);
}

TEST_CASE("a non-root process keeps its ambient capabilities across exec", "[integration][inside]") {
    // capabilities(7): after execve of a file without file capabilities by a non-root user,
    // permitted = effective = ambient; inheritable and bounding are kept.
    Sandbox sb;
    Bundle b = sb.bundle();
    b.config["process"]["user"] = Json::object({{"uid", 1000}, {"gid", 1000}});
    b.config["process"]["capabilities"] = Json::object({
        {"bounding", Json::strings({"CAP_CHOWN", "CAP_KILL", "CAP_NET_BIND_SERVICE"})},
        {"effective", Json::strings({"CAP_KILL", "CAP_NET_BIND_SERVICE"})},
        {"permitted", Json::strings({"CAP_KILL", "CAP_NET_BIND_SERVICE"})},
        {"inheritable", Json::strings({"CAP_NET_BIND_SERVICE"})},
        {"ambient", Json::strings({"CAP_NET_BIND_SERVICE"})},
    });
    Json r = sb.run_probe(b);
    CHECK(hex(r["caps"]["bnd"]) == (cap_chown | cap_kill | cap_net_bind_service));
    CHECK(hex(r["caps"]["inh"]) == cap_net_bind_service);
    CHECK(hex(r["caps"]["amb"]) == cap_net_bind_service);
    CHECK(hex(r["caps"]["prm"]) == cap_net_bind_service);
    CHECK(hex(r["caps"]["eff"]) == cap_net_bind_service);
}

TEST_CASE("rlimits are applied with their soft and hard values", "[integration][inside]") {
    Sandbox sb;
    Bundle b = sb.bundle();
    b.config["process"]["rlimits"] = Json::array({
        Json::object({{"type", "RLIMIT_NOFILE"}, {"soft", 256}, {"hard", 512}}),
        Json::object({{"type", "RLIMIT_MSGQUEUE"}, {"soft", 4096}, {"hard", 8192}}),
        Json::object({{"type", "RLIMIT_CORE"}, {"soft", 0}, {"hard", 0}}),
    });
    Json r = sb.run_probe(b);
    CHECK(r["rlimits"]["NOFILE"].at(0).u64() == 256);
    CHECK(r["rlimits"]["NOFILE"].at(1).u64() == 512);
    CHECK(r["rlimits"]["MSGQUEUE"].at(0).u64() == 4096);
    CHECK(r["rlimits"]["MSGQUEUE"].at(1).u64() == 8192);
    CHECK(r["rlimits"]["CORE"].at(1).u64() == 0);
}

TEST_CASE("noNewPrivileges is applied as configured", "[integration][inside]") {
    bool no_new_privs = GENERATE(true, false);
    Sandbox sb;
    Bundle b = sb.bundle();
    b.config["process"]["noNewPrivileges"] = no_new_privs;
    CHECK(sb.run_probe(b)["no_new_privs"].boolean() == no_new_privs);
}

TEST_CASE("oomScoreAdj is applied", "[integration][inside]") {
    Sandbox sb;
    Bundle b = sb.bundle();
    b.config["process"]["oomScoreAdj"] = 123;
    CHECK(sb.run_probe(b)["oom_score_adj"].num() == 123);
}

TEST_CASE("the process starts in the configured cwd with exactly the configured environment",
          "[integration][inside]") {
    Sandbox sb;
    Bundle b = sb.bundle();
    std::vector<std::string> env = {"PATH=/usr/bin:/bin", "HOME=/root", "ALPHA=1", "BETA=two words", "EMPTY=",
                                    sb.marker()};
    b.config["process"]["env"] = Json::strings(env);
    b.config["process"]["cwd"] = "/tmp";
    Json r = sb.run_probe(b);
    CHECK(r["cwd"].str() == "/tmp");
    std::vector<std::string> seen = r["env"].strs();
    CHECK(std::multiset<std::string>(seen.begin(), seen.end()) == std::multiset<std::string>(env.begin(), env.end()));
}

TEST_CASE("inherited file descriptors are closed: the process sees only 0, 1 and 2", "[integration][inside]") {
    Sandbox sb;
    Bundle b = sb.bundle();
    ExtraFiles extra(sb, 3);
    SpawnOptions with_fds;
    with_fds.extra_fds = extra.fds;
    Json r = sb.run_probe(b, {}, with_fds);
    CHECK(fd_numbers(r) == std::set<long long>{0, 1, 2});
}

TEST_CASE("--preserve-fds N passes exactly fds 3 to 2+N", "[integration][inside]") {
    Sandbox sb;
    Bundle b = sb.bundle();
    ExtraFiles extra(sb, 4);
    SpawnOptions with_fds;
    with_fds.extra_fds = extra.fds;  // fds 3..6 in husk; only 3 and 4 are to be preserved
    Json r = sb.run_probe(b, {"--preserve-fds", "2"}, with_fds);
    CHECK(fd_numbers(r) == std::set<long long>{0, 1, 2, 3, 4});
    CHECK_THAT(fd_target(r, 3), EndsWith("extra-0"));
    CHECK_THAT(fd_target(r, 4), EndsWith("extra-1"));
}
