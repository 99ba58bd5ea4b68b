// Host-wide state is never reachable from a config (docs/security.md): a sysctl the
// kernel does not keep per namespace, or one whose namespace the container shares with the host, is refused
// before anything exists; linux.resources.unified (and update --resources) never writes a cgroup core file
// that is not a limit. Every value a test offers for a host setting is the host's current value, so even a
// husk that wrongly wrote it would change nothing; each test checks the host value afterwards.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <csignal>
#include <iterator>
#include <thread>

#include "harness.hpp"
#include "monitor_support.hpp"

using namespace husk::test;
using Catch::Matchers::Contains;

namespace {

std::string trimmed(std::string text) {
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
    return text;
}

std::string host_value(const std::string& key) {
    std::string path = "/proc/sys/" + key;
    for (char& c : path)
        if (c == '.') c = '/';
    std::string value = trimmed(read_file(path));
    REQUIRE_FALSE(value.empty());
    return value;
}

// create fails with 1; a foreground run refuses with 2 (husk(8), EXIT STATUS).
void require_refused(const Output& out, const std::string& message, int status = 1) {
    INFO(out.describe());
    CHECK(out.exit_code == status);
    CHECK_THAT(out.err, Contains(message));
    CHECK(lines(out.err).size() == 1);
}

void drop_namespace(Json& config, const std::string& type) {
    Json kept = Json::array();
    for (const Json& ns : config["linux"]["namespaces"].items())
        if (ns["type"].str() != type) kept.push_back(ns);
    config["linux"]["namespaces"] = kept;
}

void join_network_namespace(Json& config, const std::string& path) {
    for (Json& ns : config["linux"]["namespaces"].items())
        if (ns["type"].str() == "network") ns["path"] = path;
}

// The v2 line of /proc/PID/cgroup ("0::/user.slice/..."): where the process is.
std::string v2_cgroup_of(pid_t pid) {
    for (const std::string& line : lines(read_file("/proc/" + std::to_string(pid) + "/cgroup")))
        if (line.starts_with("0::")) return line;
    return "";
}

std::string cgroup_dir(Sandbox& sb, const std::string& id) {
    return cgroup2_mount() + sb.state(id)["husk"]["cgroupPath"].str();
}

}  // namespace

TEST_CASE("a host-wide sysctl (kernel.core_pattern) is refused at create, naming it, and nothing is left",
          "[integration][sysctl]") {
    const std::string before = host_value("kernel.core_pattern");
    Sandbox sb;
    Bundle b = sb.bundle();
    b.config["linux"]["sysctl"] = Json::object({{"kernel.core_pattern", before}});
    for (const char* verb : {"create", "run"}) {
        INFO(verb);
        std::string id = sb.id(std::string("corepattern-") + verb);
        Output out = std::string(verb) == "create" ? sb.create(b, id) : sb.run(b, id);
        require_refused(out, "linux.sysctl[\"kernel.core_pattern\"]: refused: the kernel does not keep it per "
                             "namespace, so writing it would change the host",
                        std::string(verb) == "create" ? 1 : 2);
        CHECK(sb.husk({"state", id}).exit_code != 0);
    }
    check_nothing_left(sb);
    CHECK(host_value("kernel.core_pattern") == before);
}

TEST_CASE("a net sysctl is refused without a network namespace of the container's own", "[integration][sysctl]") {
    const std::string before = host_value("net.ipv4.ip_forward");
    Sandbox sb;
    Bundle b = sb.bundle();
    b.config["linux"]["sysctl"] = Json::object({{"net.ipv4.ip_forward", before}});
    drop_namespace(b.config, "network");
    require_refused(sb.create(b, sb.id("hostnet")),
                    "linux.sysctl[\"net.ipv4.ip_forward\"]: refused: the container would share the host's network "
                    "namespace");

    // Joining the host's network namespace by path is sharing it too (runc refuses this as well).
    Bundle joined = sb.bundle("joined");
    joined.config["linux"]["sysctl"] = Json::object({{"net.ipv4.ip_forward", before}});
    // /proc/self is husk's own when husk opens it.
    join_network_namespace(joined.config, "/proc/self/ns/net");
    require_refused(sb.create(joined, sb.id("joinhost")),
                    "linux.sysctl[\"net.ipv4.ip_forward\"]: refused: linux.namespaces joins the network namespace "
                    "of husk itself, so writing it would change the host");
    check_nothing_left(sb);
    CHECK(host_value("net.ipv4.ip_forward") == before);
}

TEST_CASE("an ipc sysctl is refused without an ipc namespace and applies inside one", "[integration][sysctl]") {
    const std::string before = host_value("kernel.shmmni");
    Sandbox sb;
    Bundle shared = sb.bundle();
    shared.config["linux"]["sysctl"] = Json::object({{"kernel.shmmni", before}});
    drop_namespace(shared.config, "ipc");
    require_refused(sb.create(shared, sb.id("hostipc")),
                    "linux.sysctl[\"kernel.shmmni\"]: refused: the container would share the host's ipc namespace");
    check_nothing_left(sb);

    // With its own ipc namespace the container sees its value, the host keeps its own.
    const std::string wanted = before == "1024" ? "2048" : "1024";
    Bundle own = sb.bundle("own");
    own.config["linux"]["sysctl"] = Json::object({{"kernel.shmmni", wanted}});
    own.config["process"]["args"] = Json::strings({"/probe", "read", "/proc/sys/kernel/shmmni"});
    Json r = sb.run_probe(own);
    CHECK(r["errno"].num() == 0);
    CHECK(trimmed(r["content"].str()) == wanted);
    CHECK(host_value("kernel.shmmni") == before);

    // sysctl.d(5)'s other spelling names the same file (runc accepts it; Kubernetes passes such keys).
    const std::string other = wanted == "1024" ? "3072" : "1024";
    own.config["linux"]["sysctl"] = Json::object({{"kernel/shmmni", other}});
    Json slash = sb.run_probe(own);
    CHECK(slash["errno"].num() == 0);
    CHECK(trimmed(slash["content"].str()) == other);
    CHECK(host_value("kernel.shmmni") == before);
}

TEST_CASE("a host-wide sysctl spelled with slashes is refused like its dotted name", "[integration][sysctl]") {
    const std::string before = host_value("kernel.core_pattern");
    Sandbox sb;
    Bundle b = sb.bundle();
    b.config["linux"]["sysctl"] = Json::object({{"kernel/core_pattern", before}});
    require_refused(sb.create(b, sb.id("slash")), "linux.sysctl[\"kernel/core_pattern\"]: refused: the kernel does "
                                                   "not keep it per namespace, so writing it would change the host");
    b.config["linux"]["sysctl"] = Json::object({{"net/../kernel/core_pattern", before}});
    require_refused(sb.create(b, sb.id("dotdot")), "linux.sysctl[\"net/../kernel/core_pattern\"]: a sysctl name has "
                                                    "no \".\" or \"..\" component");
    check_nothing_left(sb);
    CHECK(host_value("kernel.core_pattern") == before);
}

TEST_CASE("a net sysctl applies in a network namespace joined by path that is not the host's",
          "[integration][sysctl]") {
    const std::string before = host_value("net.ipv4.ip_forward");
    const std::string wanted = before == "1" ? "0" : "1";
    Sandbox sb;
    // A process holding a fresh network namespace, like a pod's sandbox; killed before the sandbox checks.
    Process holder = spawn({"/usr/bin/unshare", "--net", "/bin/sleep", "120"}, {}, sb.dir() + "/io/holder");
    std::string netns = "/proc/" + std::to_string(holder.pid()) + "/ns/net";
    char own[64] = {}, theirs[64] = {};
    REQUIRE(readlink("/proc/self/ns/net", own, sizeof own - 1) > 0);
    for (int i = 0; i < 250; ++i) {
        std::fill(std::begin(theirs), std::end(theirs), '\0');
        if (readlink(netns.c_str(), theirs, sizeof theirs - 1) > 0 && std::string(theirs) != own) break;
        std::this_thread::sleep_for(Ms(20));
    }
    REQUIRE(std::string(theirs) != own);

    Bundle b = sb.bundle();
    b.config["linux"]["sysctl"] = Json::object({{"net.ipv4.ip_forward", wanted}});
    join_network_namespace(b.config, netns);
    b.config["process"]["args"] = Json::strings({"/probe", "read", "/proc/sys/net/ipv4/ip_forward"});
    Json r = sb.run_probe(b);
    CHECK(r["errno"].num() == 0);
    CHECK(trimmed(r["content"].str()) == wanted);
    CHECK(host_value("net.ipv4.ip_forward") == before);
}

TEST_CASE("unified refuses cgroup core files at create, naming the key, and nothing is left",
          "[integration][unified]") {
    Sandbox sb;
    // A process of the test's own that a written cgroup.procs would move into the container's cgroup.
    Process bystander = sb.spawn_command({"/bin/sleep", "120"});
    const std::string where = v2_cgroup_of(bystander.pid());
    REQUIRE_FALSE(where.empty());
    const std::vector<std::pair<std::string, std::string>> writes = {
        {"cgroup.procs", std::to_string(bystander.pid())}, {"cgroup.threads", std::to_string(bystander.pid())},
        {"cgroup.kill", "1"}, {"cgroup.freeze", "1"}, {"cgroup.subtree_control", "+hugetlb"},
        {"cgroup.type", "threaded"}};
    for (const auto& [key, value] : writes) {
        INFO(key);
        Bundle b = sb.bundle();
        b.config["linux"]["resources"]["unified"] = Json::object({{key, value}});
        require_refused(sb.create(b, sb.id("unified")), "linux.resources.unified[\"" + key +
                                                             "\"]: refused: a cgroup core interface file, not a limit");
    }
    Bundle dotted = sb.bundle();
    dotted.config["linux"]["resources"]["unified"] = Json::object({{"../cgroup.procs", "1"}});
    require_refused(sb.create(dotted, sb.id("dotted")),
                    "linux.resources.unified[\"../cgroup.procs\"]: not a cgroup v2 interface file name");
    CHECK(v2_cgroup_of(bystander.pid()) == where);
    CHECK(process_alive(bystander.pid()));
    ::kill(bystander.pid(), SIGKILL);
    bystander.wait();
    check_nothing_left(sb);
}

TEST_CASE("update --resources refuses cgroup core files and leaves the container unchanged",
          "[integration][unified][update]") {
    Sandbox sb;
    Process bystander = sb.spawn_command({"/bin/sleep", "120"});
    const std::string where = v2_cgroup_of(bystander.pid());
    Bundle b = with_args(sb, {"/probe", "sleep", "60"});
    std::string id = sb.id("upcore");
    pid_t init = create_and_start(sb, b, id);
    std::string dir = cgroup_dir(sb, id);
    std::string procs = read_file(dir + "/cgroup.procs");
    std::string freeze = read_file(dir + "/cgroup.freeze");
    std::string subtree = read_file(dir + "/cgroup.subtree_control");

    std::string file = sb.dir() + "/resources.json";
    for (std::string key : {"cgroup.procs", "cgroup.freeze", "cgroup.kill", "cgroup.subtree_control"}) {
        INFO(key);
        std::string value = key == "cgroup.procs" ? std::to_string(bystander.pid())
                            : key == "cgroup.subtree_control" ? "+hugetlb" : "1";
        write_file(file, R"({"unified":{")" + key + R"(":")" + value + R"("}})");
        require_refused(sb.husk({"update", "--resources", file, id}),
                        "linux.resources.unified[\"" + key + "\"]: refused: a cgroup core interface file, not a limit");
    }
    CHECK(read_file(dir + "/cgroup.procs") == procs);
    CHECK(read_file(dir + "/cgroup.freeze") == freeze);
    CHECK(read_file(dir + "/cgroup.subtree_control") == subtree);
    CHECK(v2_cgroup_of(bystander.pid()) == where);
    CHECK(process_alive(bystander.pid()));
    CHECK(process_alive(init));
    CHECK(sb.state(id)["status"].str() == "running");

    // The core limits stay accepted.
    write_file(file, R"({"unified":{"cgroup.max.depth":"3"}})");
    require_ok(sb.husk({"update", "--resources", file, id}));
    CHECK(read_file(dir + "/cgroup.max.depth") == "3\n");

    ::kill(bystander.pid(), SIGKILL);
    bystander.wait();
    require_ok(sb.husk({"kill", id, "KILL"}));
    sb.wait_for_status(id, "stopped");
    delete_and_check(sb, id);
}
