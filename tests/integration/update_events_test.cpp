// update and events on this (hybrid) host: what is refused and why, that a refusal changes nothing, the
// clients' spellings of --resources, and runc's event lines. The kernel's enforcement of updated limits is
// tested in the VM (vm_*_test.cpp).
#include <catch2/catch.hpp>

#include <map>
#include <thread>

#include "harness.hpp"

using namespace husk::test;
using Catch::Matchers::Contains;

namespace {

void require_ok(const Output& out) {
    INFO(out.describe());
    REQUIRE(out.exit_code == 0);
}

void require_failure(const Output& out, int code, const std::string& message) {
    INFO(out.describe());
    CHECK(out.exit_code == code);
    CHECK_THAT(out.err, Contains(message));
}

// A created and started container that sleeps; returns its id.
std::string start_sleeper(Sandbox& sb, const std::string& name) {
    Bundle b = sb.bundle();
    b.config["process"]["args"] = Json::strings({"/probe", "sleep", "60"});
    std::string id = sb.id(name);
    require_ok(sb.create(b, id));
    require_ok(sb.husk({"start", id}));
    return id;
}

void kill_and_delete(Sandbox& sb, const std::string& id) {
    require_ok(sb.husk({"kill", id, "KILL"}));
    CHECK(sb.wait_for_status(id, "stopped")["status"].str() == "stopped");
    require_ok(sb.husk({"delete", id}));
    check_nothing_left(sb);
}

std::string cgroup_dir(Sandbox& sb, const std::string& id) {
    return cgroup2_mount() + sb.state(id)["husk"]["cgroupPath"].str();
}

// The files update could write, in the container's cgroup and its parent (controllers get enabled in
// ancestors): what "nothing changed" compares.
std::map<std::string, std::string> knobs(const std::string& dir) {
    std::map<std::string, std::string> out;
    for (const char* name : {"cgroup.max.descendants", "cgroup.max.depth", "cgroup.subtree_control", "cgroup.freeze",
                             "cgroup.type"})
        out[std::string(name)] = read_file(dir + "/" + name);
    std::string parent = dir.substr(0, dir.rfind('/'));
    out["../cgroup.subtree_control"] = read_file(parent + "/cgroup.subtree_control");
    return out;
}

bool controller_in_v2(const std::string& controller) {
    for (const std::string& name : lines(read_file(cgroup2_mount() + "/cgroup.controllers")))
        if (name == controller || name.find(controller + " ") == 0 || name.find(" " + controller) != std::string::npos)
            return true;
    return false;
}

}  // namespace

TEST_CASE("update --memory on a hybrid host is refused naming the memory controller and the layout, and "
          "changes nothing",
          "[integration][update]") {
    if (controller_in_v2("memory")) {
        WARN("the memory controller is on cgroup v2 here: the hybrid refusal cannot be shown");
        return;
    }
    Sandbox sb;
    std::string id = start_sleeper(sb, "upmem");
    std::string dir = cgroup_dir(sb, id);
    auto before = knobs(dir);

    Output refused = sb.husk({"update", "--memory", "64m", id});
    require_failure(refused, 1, "memory controller");
    CHECK_THAT(refused.err, Contains("hybrid"));
    CHECK_THAT(refused.err, Contains("linux.resources.memory.limit"));

    // A refused field makes the whole update fail before anything is written, core files included.
    std::string both = sb.dir() + "/both.json";
    write_file(both, R"({"unified":{"cgroup.max.descendants":"7"},"memory":{"limit":67108864}})");
    require_failure(sb.husk({"update", "--resources", both, id}), 1, "memory controller");
    CHECK(knobs(dir) == before);
    CHECK(sb.state(id)["status"].str() == "running");
    kill_and_delete(sb, id);
}

TEST_CASE("update takes --resources FILE, --resources=FILE (podman) and --resources - (containerd)",
          "[integration][update]") {
    Sandbox sb;
    std::string id = start_sleeper(sb, "upres");
    std::string dir = cgroup_dir(sb, id);
    std::string file = sb.dir() + "/resources.json";

    // cgroup.max.descendants is a core file: writable without any controller, so it works on this host.
    write_file(file, R"({"unified":{"cgroup.max.descendants":"5"}})");
    require_ok(sb.husk({"update", "--resources", file, id}));
    CHECK(read_file(dir + "/cgroup.max.descendants") == "5\n");

    write_file(file, R"({"unified":{"cgroup.max.descendants":"6"}})");
    require_ok(sb.husk({"update", "--resources=" + file, id}));
    CHECK(read_file(dir + "/cgroup.max.descendants") == "6\n");

    SpawnOptions from_stdin;
    from_stdin.stdin_data = R"({"unified":{"cgroup.max.descendants":"max"}})";
    require_ok(sb.husk({"update", "--resources", "-", id}, from_stdin));
    CHECK(read_file(dir + "/cgroup.max.descendants") == "max\n");

    // Docker's update sends "kernel": 0 and "kernelTCP": 0 each time: unset, as runc reads them, so they ask for no
    // controller (this host has none in cgroup v2) and change nothing.
    from_stdin.stdin_data = R"({"memory":{"kernel":0,"kernelTCP":0},"unified":{"cgroup.max.descendants":"7"}})";
    require_ok(sb.husk({"update", "--resources", "-", id}, from_stdin));
    CHECK(read_file(dir + "/cgroup.max.descendants") == "7\n");

    // A paused container can be updated too (runc refuses only stopped ones).
    require_ok(sb.husk({"pause", id}));
    require_ok(sb.husk({"update", "-r", file, id}));
    CHECK(read_file(dir + "/cgroup.max.descendants") == "6\n");
    require_ok(sb.husk({"resume", id}));
    kill_and_delete(sb, id);
}

TEST_CASE("update refuses bad values and unsupported flags, naming them, and unknown or stopped containers",
          "[integration][update]") {
    Sandbox sb;
    std::string id = start_sleeper(sb, "upbad");
    std::string dir = cgroup_dir(sb, id);
    auto before = knobs(dir);

    require_failure(sb.husk({"update", "--memory", "64q", id}), 1, "--memory: size \"64q\": unknown unit");
    require_failure(sb.husk({"update", "--cpu-quota", "lots", id}), 1, "--cpu-quota \"lots\": not an integer");
    require_failure(sb.husk({"update", "--pids-limit", "", id}), 1, "--pids-limit");
    require_failure(sb.husk({"update", "--l3-cache-schema", "L3:0=f", id}), 1, "Intel RDT");
    require_failure(sb.husk({"update", "--mem-bw-schema", "MB:0=50", id}), 1, "Intel RDT");
    require_failure(sb.husk({"update", "--no-such-flag", "1", id}), 2, "no-such-flag");
    require_failure(sb.husk({"update"}), 2, "container id is required");

    std::string bad = sb.dir() + "/bad.json";
    write_file(bad, R"({"memory":{"limit":"lots"}})");
    require_failure(sb.husk({"update", "--resources", bad, id}), 1, "--resources " + bad + ": memory.limit");
    write_file(bad, "{not json");
    require_failure(sb.husk({"update", "--resources", bad, id}), 1, "invalid JSON");
    require_failure(sb.husk({"update", "--resources", sb.dir() + "/missing.json", id}), 1, "no such file");
    CHECK(knobs(dir) == before);

    require_failure(sb.husk({"update", "--cpu-share", "512", sb.id("nobody")}), 1, "container does not exist");

    require_ok(sb.husk({"kill", id, "KILL"}));
    sb.wait_for_status(id, "stopped");
    std::string file = sb.dir() + "/ok.json";
    write_file(file, R"({"unified":{"cgroup.max.descendants":"5"}})");
    require_failure(sb.husk({"update", "--resources", file, id}), 1, "container not running (stopped)");
    require_ok(sb.husk({"delete", id}));
    check_nothing_left(sb);
}

TEST_CASE("events --stats prints one runc stats line with the container's id", "[integration][events]") {
    Sandbox sb;
    std::string id = start_sleeper(sb, "evstats");
    Output stats = sb.husk({"events", "--stats", id});
    require_ok(stats);
    REQUIRE(lines(stats.out).size() == 1);
    Json event = Json::parse(stats.out);
    INFO(stats.out);
    CHECK(event["type"].str() == "stats");
    CHECK(event["id"].str() == id);
    const Json& data = event["data"];
    CHECK(data["cpu"]["usage"].contains("kernel"));
    CHECK(data["cpu"]["usage"].contains("user"));
    CHECK(data["pids"]["current"].num() >= 1);  // the probe (from cgroup.procs without the pids controller)
    CHECK(data["memory"]["usage"].contains("limit"));
    CHECK(data["hugetlb"].is_object());
    kill_and_delete(sb, id);
}

TEST_CASE("events prints a stats line every interval and exits 0 after stopped when the container stops",
          "[integration][events]") {
    Sandbox sb;
    std::string id = start_sleeper(sb, "evstream");
    Process watcher = sb.spawn_husk({"events", "--interval", "100ms", id});
    auto deadline = std::chrono::steady_clock::now() + Ms(10000);
    while (lines(watcher.current_out()).size() < 3 && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(Ms(20));
    REQUIRE(lines(watcher.current_out()).size() >= 3);

    require_ok(sb.husk({"kill", id, "KILL"}));
    Output done = watcher.wait();
    INFO(done.describe());
    CHECK(done.exit_code == 0);
    CHECK_FALSE(done.timed_out);
    // Between the status it started from and the verdict, the stats (events_stream_test.cpp: the transitions).
    std::vector<std::string> all = lines(done.out);
    REQUIRE(all.size() >= 4);
    for (size_t i = 0; i < all.size(); ++i) {
        Json event = Json::parse(all[i]);
        const char* expected = i == 0 ? "started" : i + 1 == all.size() ? "stopped" : "stats";
        CHECK(event["type"].str() == expected);
        CHECK(event["id"].str() == id);
    }
    sb.wait_for_status(id, "stopped");
    require_ok(sb.husk({"delete", id}));
    check_nothing_left(sb);
}

TEST_CASE("events on a stopped, deleted or unknown container is an error", "[integration][events]") {
    Sandbox sb;
    std::string id = start_sleeper(sb, "evstopped");
    require_ok(sb.husk({"kill", id, "KILL"}));
    sb.wait_for_status(id, "stopped");
    require_failure(sb.husk({"events", "--stats", id}), 1, "container with id " + id + " is not running");
    require_failure(sb.husk({"events", id}), 1, "is not running");
    require_ok(sb.husk({"delete", id}));
    require_failure(sb.husk({"events", "--stats", id}), 1, "container does not exist");
    require_failure(sb.husk({"events", "--interval", "soon", sb.id("nobody")}), 1, "--interval");
    require_failure(sb.husk({"events", "--interval", "0s", sb.id("nobody")}), 1, "greater than 0");
    check_nothing_left(sb);
}
