// Inside the container (via the probe): namespaces, joining by path, hostname, user and time
// namespaces, loopback, sysctl, cgroup placement.
#include <catch2/catch.hpp>

#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <thread>

#include "harness.hpp"

using namespace husk::test;
using Catch::Matchers::Contains;

namespace {

std::string ns_link(const std::string& proc, const std::string& type) {
    char buf[256];
    ssize_t n = readlink((proc + "/ns/" + type).c_str(), buf, sizeof buf - 1);
    return n < 0 ? std::string() : std::string(buf, static_cast<size_t>(n));
}

std::string host_ns(const std::string& type) { return ns_link("/proc/self", type); }

double clock_seconds(clockid_t clock) {
    timespec ts{};
    clock_gettime(clock, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

std::string trim(std::string text) {
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
    return text;
}

std::string squeeze_spaces(const std::string& text) {
    std::string out;
    for (char c : text) {
        bool space = c == ' ' || c == '\t' || c == '\n';
        if (space && (out.empty() || out.back() == ' ')) continue;
        out += space ? ' ' : c;
    }
    return trim(out);
}

// A process (not marked as the sandbox's) that holds new network and UTS namespaces to join.
struct NamespaceHolder {
    Process process;
    std::string proc;

    explicit NamespaceHolder(const Sandbox& sb)
        : process(spawn({"/usr/bin/unshare", "--net", "--uts", "/bin/sleep", "120"}, {}, sb.dir() + "/io/holder")),
          proc("/proc/" + std::to_string(process.pid())) {
        for (int i = 0; i < 250 && ns_link(proc, "net") == host_ns("net"); ++i) std::this_thread::sleep_for(Ms(20));
    }
};

void remove_mount(Json& config, const std::string& destination) {
    Json kept = Json::array();
    for (const Json& m : config["mounts"].items())
        if (m["destination"].str() != destination) kept.push_back(m);
    config["mounts"] = kept;
}

}  // namespace

TEST_CASE("the container gets new pid, network, ipc, uts and mount namespaces and shares the others",
          "[integration][inside]") {
    Sandbox sb;
    Json r = sb.run_probe(sb.bundle());
    for (const char* type : {"pid", "net", "ipc", "uts", "mnt"}) {
        INFO(type);
        CHECK(r["ns"][type].str() != host_ns(type));
    }
    for (const char* type : {"user", "cgroup", "time"}) {
        INFO(type);
        CHECK(r["ns"][type].str() == host_ns(type));
    }
    CHECK(r["pid"].num() == 1);
}

TEST_CASE("a new network namespace has its loopback interface up", "[integration][inside]") {
    Sandbox sb;
    CHECK(sb.run_probe(sb.bundle())["lo_up"].boolean());
}

TEST_CASE("a namespace path joins that namespace", "[integration][inside]") {
    Sandbox sb;
    Bundle b = sb.bundle();
    NamespaceHolder holder(sb);
    REQUIRE(ns_link(holder.proc, "net") != host_ns("net"));
    for (Json& ns : b.config["linux"]["namespaces"].items()) {
        if (ns["type"].str() == "network") ns["path"] = holder.proc + "/ns/net";
        if (ns["type"].str() == "uts") ns["path"] = holder.proc + "/ns/uts";
    }
    b.config.erase("hostname");
    Json r = sb.run_probe(b);
    CHECK(r["ns"]["net"].str() == ns_link(holder.proc, "net"));
    CHECK(r["ns"]["uts"].str() == ns_link(holder.proc, "uts"));
    CHECK(r["ns"]["ipc"].str() != host_ns("ipc"));
}

TEST_CASE("a namespace path of another namespace type is refused", "[integration][inside]") {
    Sandbox sb;
    Bundle b = sb.bundle();
    NamespaceHolder holder(sb);
    for (Json& ns : b.config["linux"]["namespaces"].items())
        if (ns["type"].str() == "network") ns["path"] = holder.proc + "/ns/uts";
    Output out = sb.run(b, sb.id("wrongns"));
    INFO(out.describe());
    CHECK(out.exit_code != 0);
    CHECK(lines(out.err).size() == 1);
    CHECK_THAT(out.err, Contains(holder.proc + "/ns/uts"));
    check_nothing_left(sb);
}

TEST_CASE("hostname and domainname are set inside the container only", "[integration][inside]") {
    char before[256] = {};
    gethostname(before, sizeof before);
    Sandbox sb;
    Bundle b = sb.bundle();
    b.config["hostname"] = "husk-inside";
    b.config["domainname"] = "example.org";
    Json r = sb.run_probe(b);
    CHECK(r["hostname"].str() == "husk-inside");
    CHECK(r["domainname"].str() == "example.org");
    char after[256] = {};
    gethostname(after, sizeof after);
    CHECK(std::string(after) == before);
}

TEST_CASE("a user namespace maps container root to the configured host ids", "[integration][inside]") {
    Sandbox sb;
    Bundle b = sb.bundle();
    b.config["linux"]["namespaces"].push_back(Json::object({{"type", "user"}}));
    Json mapping = Json::array({Json::object({{"containerID", 0}, {"hostID", 100000}, {"size", 65536}})});
    b.config["linux"]["uidMappings"] = mapping;
    b.config["linux"]["gidMappings"] = mapping;
    remove_mount(b.config, "/sys/fs/cgroup");  // a cgroup mount needs a cgroup namespace owned by the user namespace
    std::string id = sb.id("userns");
    Output created = sb.create(b, id);
    INFO(created.describe());
    REQUIRE(created.exit_code == 0);
    long long pid = sb.state(id)["pid"].num();
    sb.track_pid(static_cast<pid_t>(pid));
    std::string proc = "/proc/" + std::to_string(pid);
    CHECK(squeeze_spaces(read_file(proc + "/uid_map")) == "0 100000 65536");
    CHECK(squeeze_spaces(read_file(proc + "/gid_map")) == "0 100000 65536");

    REQUIRE(sb.husk({"start", id}).exit_code == 0);
    REQUIRE(sb.wait_for_status(id, "stopped")["status"].str() == "stopped");
    Json r = last_json_line(created.current_out());
    CHECK(r["uid"].num() == 0);
    CHECK(r["gid"].num() == 0);
    CHECK(r["ns"]["user"].str() != host_ns("user"));
    REQUIRE(sb.husk({"delete", id}).exit_code == 0);
}

TEST_CASE("a time namespace shifts the monotonic and boottime clocks by the configured offsets",
          "[integration][inside]") {
    const double week = 7 * 86400.0;
    Sandbox sb;
    Bundle b = sb.bundle();
    b.config["linux"]["namespaces"].push_back(Json::object({{"type", "time"}}));
    b.config["linux"]["timeOffsets"] = Json::object({
        {"monotonic", Json::object({{"secs", 7 * 86400}, {"nanosecs", 0}})},
        {"boottime", Json::object({{"secs", 14 * 86400}, {"nanosecs", 0}})},
    });
    double mono_before = clock_seconds(CLOCK_MONOTONIC), boot_before = clock_seconds(CLOCK_BOOTTIME);
    Json r = sb.run_probe(b);
    double mono_after = clock_seconds(CLOCK_MONOTONIC), boot_after = clock_seconds(CLOCK_BOOTTIME);
    CHECK(r["ns"]["time"].str() != host_ns("time"));
    double mono = r["clock"]["monotonic"].dbl(), boot = r["clock"]["boottime"].dbl();
    CHECK(mono >= mono_before + week);
    CHECK(mono <= mono_after + week);
    CHECK(boot >= boot_before + 2 * week);
    CHECK(boot <= boot_after + 2 * week);
}

TEST_CASE("a sysctl applies inside the container's namespace only", "[integration][inside]") {
    const std::string path = "/proc/sys/net/ipv4/ip_forward";
    std::string host_before = trim(read_file(path));
    std::string wanted = host_before == "1" ? "0" : "1";
    Sandbox sb;
    Bundle b = sb.bundle();
    b.config["linux"]["sysctl"] = Json::object({{"net.ipv4.ip_forward", wanted}});
    b.config["process"]["args"] = Json::strings({"/probe", "read", path});
    Json r = sb.run_probe(b);
    CHECK(r["errno"].num() == 0);
    CHECK(trim(r["content"].str()) == wanted);
    CHECK(trim(read_file(path)) == host_before);
}

TEST_CASE("the container runs in its own cgroup v2, named after its id", "[integration][inside]") {
    Sandbox sb;
    Bundle b = sb.bundle();
    std::string id = sb.id("cgroup");
    Output out = sb.run(b, id);
    INFO(out.describe());
    REQUIRE(out.exit_code == 0);
    std::string v2_line;
    for (const std::string& line : lines(last_json_line(out.out)["cgroup"].str()))
        if (line.rfind("0::", 0) == 0) v2_line = line;
    CHECK_THAT(v2_line, Catch::Matchers::EndsWith("/" + id));
}

TEST_CASE("a cgroup namespace makes the container's cgroup its root", "[integration][inside]") {
    Sandbox sb;
    Bundle b = sb.bundle();
    b.config["linux"]["namespaces"].push_back(Json::object({{"type", "cgroup"}}));
    Json r = sb.run_probe(b);
    CHECK(r["ns"]["cgroup"].str() != host_ns("cgroup"));
    CHECK_THAT(r["cgroup"].str(), Contains("0::/\n"));
}

namespace {

// The super options of the cgroup2 mount husk uses ("rw,nsdelegate,memory_recursiveprot" in the VM).
std::string cgroup2_super_options() {
    for (const std::string& line : lines(read_file("/proc/self/mountinfo"))) {
        std::size_t dash = line.find(" - cgroup2 ");
        if (dash == std::string::npos) continue;
        return line.substr(line.rfind(' ') + 1);
    }
    return "";
}

}  // namespace

// A new cgroup2 mount made from the initial cgroup namespace re-applies the hierarchy's root options
// host-wide (the VM mounts it with nsdelegate,memory_recursiveprot, as systemd does): husk binds its own view.
TEST_CASE("without a cgroup namespace the cgroup mount is husk's view of the hierarchy, bound, and the host's "
          "cgroup2 options stay as they are", "[integration][inside][vm]") {
    Sandbox sb;
    const std::string before = cgroup2_super_options();
    REQUIRE_FALSE(before.empty());
    Bundle b = sb.bundle();
    // Its own cgroup, seen from the hierarchy's root: the whole hierarchy, read-only.
    b.config["process"]["args"] = Json::array(
        {"/bin/sh", "-c",
         "p=$(sed -n 's/^0:://p' /proc/self/cgroup); test -f \"/sys/fs/cgroup$p/cgroup.procs\" && echo own-cgroup-seen; "
         "test -f /sys/fs/cgroup/cgroup.controllers && echo root-seen; "
         "mkdir /sys/fs/cgroup/husk-test-x 2>/dev/null || echo read-only"});
    Output out = sb.run(b, sb.id("cgview"));
    INFO(out.describe());
    REQUIRE(out.exit_code == 0);
    CHECK_THAT(out.out, Contains("own-cgroup-seen"));
    CHECK_THAT(out.out, Contains("root-seen"));
    CHECK_THAT(out.out, Contains("read-only"));
    CHECK(cgroup2_super_options() == before);

    // Options of the hierarchy itself would be the host's: refused, nothing left behind.
    Bundle nsdelegate = sb.bundle();
    for (Json& m : nsdelegate.config["mounts"].items())
        if (m["type"].str() == "cgroup") m["options"].push_back(Json("nsdelegate"));
    Output refused = sb.run(nsdelegate, sb.id("cgopts"));
    INFO(refused.describe());
    CHECK(refused.exit_code != 0);
    CHECK_THAT(refused.err, Contains("\"nsdelegate\" would change the options of the host's cgroup2 hierarchy"));
    CHECK(cgroup2_super_options() == before);
    check_nothing_left(sb);
}
