// Lifecycle: create/start/state/kill/delete/run/list as runc-compatible callers drive them.
#include <catch2/catch.hpp>

#include <signal.h>

#include <algorithm>
#include <set>
#include <thread>

#include "harness.hpp"

using namespace husk::test;
using Catch::Matchers::Contains;

namespace {

// A bundle whose process prints {"sleeping":N} and then sleeps (exit 128+signal on TERM/INT/HUP).
Bundle sleeper(Sandbox& sb, int seconds = 60) {
    Bundle b = sb.bundle();
    b.config["process"]["args"] = Json::strings({"/probe", "sleep", std::to_string(seconds)});
    return b;
}

// Drops the pid namespace, so the process is not a pid-namespace init and default signal actions apply.
void share_host_pid_namespace(Bundle& b) {
    Json kept = Json::array();
    for (const Json& ns : b.config["linux"]["namespaces"].items())
        if (ns["type"].str() != "pid") kept.push_back(ns);
    b.config["linux"]["namespaces"] = kept;
}

bool wait_for_output(const Output& from, std::string_view text, Ms timeout = Ms(10000)) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    while (from.current_out().find(text) == std::string::npos) {
        if (std::chrono::steady_clock::now() > deadline) return false;
        std::this_thread::sleep_for(Ms(20));
    }
    return true;
}

void require_ok(const Output& out);

// SIGKILL to init, wait for "stopped", delete, and check nothing is left.
void kill_and_delete(Sandbox& sb, const std::string& id) {
    require_ok(sb.husk({"kill", id, "KILL"}));
    CHECK(sb.wait_for_status(id, "stopped")["status"].str() == "stopped");
    require_ok(sb.husk({"delete", id}));
    check_nothing_left(sb);
}

void require_ok(const Output& out) {
    INFO(out.describe());
    REQUIRE(out.exit_code == 0);
}

}  // namespace

TEST_CASE("create, start, kill and delete walk a container through created, running and stopped",
          "[integration][lifecycle]") {
    Sandbox sb;
    Bundle b = sleeper(sb);
    std::string id = sb.id("walk"), pid_file = sb.dir() + "/init.pid";
    Output created = sb.create(b, id, {"--pid-file", pid_file});
    require_ok(created);

    Json st = sb.state(id);
    CHECK(st["id"].str() == id);
    CHECK(st["status"].str() == "created");
    CHECK(st["bundle"].str() == b.dir);
    CHECK_FALSE(st["ociVersion"].str().empty());
    long long pid = st["pid"].num();
    REQUIRE(pid > 0);
    sb.track_pid(static_cast<pid_t>(pid));
    CHECK(std::stoll(read_file(pid_file)) == pid);
    CHECK(process_alive(static_cast<pid_t>(pid)));
    CHECK(created.current_out().find("sleeping") == std::string::npos);  // not started yet

    require_ok(sb.husk({"start", id}));
    CHECK(wait_for_output(created, "sleeping"));
    CHECK(sb.state(id)["status"].str() == "running");
    CHECK(sb.state(id)["pid"].num() == pid);

    require_ok(sb.husk({"kill", id, "KILL"}));
    st = sb.wait_for_status(id, "stopped");
    CHECK(st["status"].str() == "stopped");
    CHECK(st["pid"].num() == 0);

    require_ok(sb.husk({"delete", id}));
    Output gone = sb.husk({"state", id});
    CHECK(gone.exit_code == 1);
    CHECK_THAT(gone.err, Contains("container does not exist"));
    check_nothing_left(sb);
}

TEST_CASE("a container whose process exits is reported stopped with pid 0 without any other call",
          "[integration][lifecycle]") {
    Sandbox sb;
    Bundle b = sleeper(sb, 1);
    std::string id = sb.id("exits");
    require_ok(sb.create(b, id));
    require_ok(sb.husk({"start", id}));
    std::this_thread::sleep_for(Ms(2500));  // nobody calls husk while the process exits
    Json st = sb.state(id);
    CHECK(st["status"].str() == "stopped");
    CHECK(st["pid"].num() == 0);
    require_ok(sb.husk({"delete", id}));
    check_nothing_left(sb);
}

TEST_CASE("create without --bundle uses the current directory", "[integration][lifecycle]") {
    Sandbox sb;
    Bundle b = sleeper(sb);
    b.write();
    std::string id = sb.id("cwd");
    SpawnOptions in_bundle;
    in_bundle.cwd = b.dir;
    require_ok(sb.husk({"create", id}, in_bundle));
    CHECK(sb.state(id)["bundle"].str() == b.dir);
}

TEST_CASE("run in the foreground exits with the container's exit code", "[integration][lifecycle]") {
    int code = GENERATE(0, 3, 42);
    Sandbox sb;
    Bundle b = sb.bundle();
    b.config["process"]["args"] = Json::strings({"/probe", "exit", std::to_string(code)});
    Output out = sb.run(b, sb.id("code"));
    INFO(out.describe());
    CHECK(out.exit_code == code);
    check_nothing_left(sb);  // run deletes the container after it exits
}

TEST_CASE("run exits with 128 plus the signal that killed the container's process", "[integration][lifecycle]") {
    Sandbox sb;
    Bundle b = sb.bundle();
    share_host_pid_namespace(b);
    b.config["process"]["args"] = Json::strings({"/probe", "signal-self", "9"});
    Output out = sb.run(b, sb.id("signal"));
    INFO(out.describe());
    CHECK(out.exit_code == 128 + SIGKILL);
    check_nothing_left(sb);
}

TEST_CASE("run --detach returns while the container keeps running", "[integration][lifecycle]") {
    Sandbox sb;
    Bundle b = sleeper(sb);
    std::string id = sb.id("detach");
    Output out = sb.run(b, id, {"--detach"});
    require_ok(out);
    CHECK(out.elapsed < Ms(10000));
    CHECK(sb.state(id)["status"].str() == "running");
    CHECK(wait_for_output(out, "sleeping"));
    require_ok(sb.husk({"kill", id, "9"}));
    CHECK(sb.wait_for_status(id, "stopped")["status"].str() == "stopped");
    require_ok(sb.husk({"delete", id}));
}

TEST_CASE("starting a container twice fails and leaves it running", "[integration][lifecycle]") {
    Sandbox sb;
    Bundle b = sleeper(sb);
    std::string id = sb.id("twice");
    require_ok(sb.create(b, id));
    require_ok(sb.husk({"start", id}));
    Output again = sb.husk({"start", id});
    INFO(again.describe());
    CHECK(again.exit_code != 0);
    CHECK(lines(again.err).size() == 1);
    CHECK(sb.state(id)["status"].str() == "running");
}

TEST_CASE("delete of a created container fails without --force and succeeds with it", "[integration][lifecycle]") {
    Sandbox sb;
    Bundle b = sleeper(sb);
    std::string id = sb.id("created");
    require_ok(sb.create(b, id));
    long long pid = sb.state(id)["pid"].num();
    sb.track_pid(static_cast<pid_t>(pid));

    Output refused = sb.husk({"delete", id});
    INFO(refused.describe());
    CHECK(refused.exit_code != 0);  // runtime-spec: delete of a container that is not stopped is an error
    CHECK(sb.state(id)["status"].str() == "created");
    CHECK(process_alive(static_cast<pid_t>(pid)));

    require_ok(sb.husk({"delete", "--force", id}));
    CHECK(sb.husk({"state", id}).exit_code == 1);
    check_nothing_left(sb);
}

TEST_CASE("kill of a stopped container fails with container not running", "[integration][lifecycle]") {
    Sandbox sb;
    Bundle b = sb.bundle();
    b.config["process"]["args"] = Json::strings({"/probe", "exit", "0"});
    std::string id = sb.id("stopped");
    require_ok(sb.create(b, id));
    require_ok(sb.husk({"start", id}));
    REQUIRE(sb.wait_for_status(id, "stopped")["status"].str() == "stopped");
    Output out = sb.husk({"kill", id});
    INFO(out.describe());
    CHECK(out.exit_code != 0);
    CHECK_THAT(out.err, Contains("container not running"));
    CHECK(sb.state(id)["status"].str() == "stopped");
}

TEST_CASE("kill --all of a container whose init has exited signals what it left and succeeds, as runc's does",
          "[integration][lifecycle]") {
    // containerd and dockerd send kill --all ID 9 after every exit of a container that shares a pid namespace.
    Sandbox sb;
    Bundle b = sb.bundle();
    share_host_pid_namespace(b);
    const std::string left = "/left.pid";
    b.config["process"]["args"] = Json::strings({"/bin/sh", "-c", "/probe sleep 60 & echo $! > " + left + "; exit 0"});
    std::string id = sb.id("orphans");
    require_ok(sb.create(b, id));
    require_ok(sb.husk({"start", id}));
    REQUIRE(sb.wait_for_status(id, "stopped")["status"].str() == "stopped");
    std::string pid_text;
    for (int i = 0; i < 500 && (pid_text = read_file(b.rootfs() + left)).empty(); ++i) std::this_thread::sleep_for(Ms(10));
    REQUIRE_FALSE(pid_text.empty());
    const pid_t sleeper = static_cast<pid_t>(std::stol(pid_text));  // a host pid: no pid namespace
    sb.track_pid(sleeper);
    CHECK(process_alive(sleeper));
    Output plain = sb.husk({"kill", id, "9"});
    CHECK(plain.exit_code == 1);
    CHECK_THAT(plain.err, Contains("container not running"));
    require_ok(sb.husk({"kill", "--all", id, "9"}));
    for (int i = 0; i < 500 && process_alive(sleeper); ++i) std::this_thread::sleep_for(Ms(10));
    CHECK_FALSE(process_alive(sleeper));
    require_ok(sb.husk({"kill", "--all", id, "9"}));  // nothing left: still no error
    CHECK(sb.state(id)["husk"]["exit"]["reason"].str() == "exited");
    require_ok(sb.husk({"delete", id}));
    check_nothing_left(sb);
}

TEST_CASE("kill accepts signal names with and without SIG, numbers, and defaults to SIGTERM",
          "[integration][lifecycle]") {
    std::string signal = GENERATE(as<std::string>{}, "SIGTERM", "TERM", "15", "");
    Sandbox sb;
    Bundle b = sleeper(sb);
    std::string id = sb.id("kill");
    Output created = sb.create(b, id);
    require_ok(created);
    require_ok(sb.husk({"start", id}));
    REQUIRE(wait_for_output(created, "sleeping"));  // the probe's SIGTERM handler is installed
    std::vector<std::string> args = {"kill", id};
    if (!signal.empty()) args.push_back(signal);
    require_ok(sb.husk(args));
    CHECK(sb.wait_for_status(id, "stopped")["status"].str() == "stopped");
}

TEST_CASE("kill --all signals every process of the container", "[integration][lifecycle]") {
    Sandbox sb;
    Bundle b = sb.bundle();
    share_host_pid_namespace(b);  // otherwise the kernel would kill the rest with the pid-namespace init
    b.config["process"]["args"] = Json::strings({"/bin/sh", "-c", "/probe sleep 60 & /probe sleep 60 & wait"});
    std::string id = sb.id("all");
    Output created = sb.create(b, id);
    require_ok(created);
    require_ok(sb.husk({"start", id}));
    REQUIRE(wait_for_output(created, "}\n{"));  // both sleepers are up
    require_ok(sb.husk({"kill", "--all", id, "KILL"}));
    CHECK(sb.wait_for_status(id, "stopped")["status"].str() == "stopped");
    std::vector<std::string> left = sb.leftovers();
    std::erase_if(left, [](const std::string& item) { return item.rfind("process ", 0) != 0; });
    INFO(join_lines(left));
    CHECK(left.empty());
}

TEST_CASE("delete --force of an unknown container exits 0", "[integration][lifecycle]") {
    Sandbox sb;
    Output out = sb.husk({"delete", "--force", sb.id("unknown")});
    INFO(out.describe());
    CHECK(out.exit_code == 0);
    check_nothing_left(sb);
}

TEST_CASE("state, kill and delete of an unknown container fail with container does not exist",
          "[integration][lifecycle]") {
    std::string verb = GENERATE(as<std::string>{}, "state", "kill", "delete", "start");
    Sandbox sb;
    Output out = sb.husk({verb, sb.id("unknown")});
    INFO(out.describe());
    CHECK(out.exit_code == 1);
    CHECK_THAT(out.err, Contains("container does not exist"));
    CHECK(lines(out.err).size() == 1);
    check_nothing_left(sb);
}

TEST_CASE("list prints ids with -q and full states with --format json", "[integration][lifecycle]") {
    Sandbox sb;
    Bundle b = sleeper(sb);
    std::string first = sb.id("first"), second = sb.id("second");
    require_ok(sb.create(b, first));
    require_ok(sb.create(b, second));
    require_ok(sb.husk({"start", second}));

    Output quiet = sb.husk({"list", "-q"});
    require_ok(quiet);
    std::vector<std::string> ids = lines(quiet.out);
    CHECK(std::set<std::string>(ids.begin(), ids.end()) == std::set<std::string>{first, second});
    CHECK(ids.size() == 2);

    Output json = sb.husk({"list", "--format", "json"});
    require_ok(json);
    Json all = Json::parse(json.out);
    REQUIRE(all.size() == 2);
    for (const Json& c : all.items()) {
        CHECK(c["status"].str() == (c["id"].str() == first ? "created" : "running"));
        CHECK(c["pid"].num() > 0);
        CHECK(c["bundle"].str() == b.dir);
    }
}

TEST_CASE("an id may start with a dot, is listed, and never passes for another id's unfinished create",
          "[integration][lifecycle]") {
    Sandbox sb;
    Bundle b = sleeper(sb);
    std::string first = sb.id("first");
    // Valid for runc and husk; shaped like the temporary directory a create of `first` killed half-way would
    // leave, named after a creator that is not alive (pid 4194000 is past the usual pid_max).
    std::string lookalike = sb.exact_id(".creating-" + first + "-4194000.1-Abcdef");
    require_ok(sb.create(b, first));
    require_ok(sb.create(b, lookalike));
    Output quiet = sb.husk({"list", "-q"});
    require_ok(quiet);
    std::vector<std::string> ids = lines(quiet.out);
    CHECK(std::set<std::string>(ids.begin(), ids.end()) == std::set<std::string>{first, lookalike});
    require_ok(sb.husk({"delete", "--force", first}));
    CHECK(sb.state(lookalike)["status"].str() == "created");
    require_ok(sb.husk({"delete", "--force", lookalike}));
    check_nothing_left(sb);
}

TEST_CASE("concurrent creates of one id: exactly one wins and the winner is intact", "[integration][lifecycle]") {
    Sandbox sb;
    Bundle b = sleeper(sb);
    b.write();
    std::string id = sb.id("race");
    std::vector<Process> racers;
    for (int i = 0; i < 4; ++i) racers.push_back(sb.spawn_husk({"create", "--bundle", b.dir, id}));
    std::vector<Output> results;
    for (Process& p : racers) results.push_back(p.wait());
    auto winners = std::count_if(results.begin(), results.end(), [](const Output& o) { return o.exit_code == 0; });
    std::string described;
    for (const Output& o : results) described += o.describe() + "\n";
    INFO(described);
    REQUIRE(winners == 1);
    const Output& winner = *std::find_if(results.begin(), results.end(), [](const Output& o) { return o.exit_code == 0; });
    for (const Output& o : results) CHECK((o.exit_code == 0 || !o.err.empty()));

    Json st = sb.state(id);
    CHECK(st["status"].str() == "created");
    CHECK(process_alive(static_cast<pid_t>(st["pid"].num())));
    require_ok(sb.husk({"start", id}));
    CHECK(wait_for_output(winner, "sleeping"));
    kill_and_delete(sb, id);
}

TEST_CASE("the example bundle's config runs and prints its greeting", "[integration][lifecycle]") {
    Sandbox sb;
    Bundle b = sb.bundle();
    b.config = Json::parse(read_file(paths().example_config));
    b.config["process"]["env"].push_back(sb.marker());
    Output out = sb.run(b, sb.id("example"));
    INFO(out.describe());
    CHECK(out.exit_code == 0);
    CHECK_THAT(out.out, Contains("hello from husk"));
    CHECK_THAT(out.out, Contains("husk-demo"));
    check_nothing_left(sb);
}

TEST_CASE("pause freezes the container's cgroup and resume thaws it", "[integration][lifecycle]") {
    Sandbox sb;
    Bundle b = sleeper(sb);
    std::string id = sb.id("pause");
    Output created = sb.create(b, id);
    require_ok(created);
    require_ok(sb.husk({"start", id}));
    REQUIRE(wait_for_output(created, "sleeping"));
    Json running = sb.state(id);
    std::string events = "/sys/fs/cgroup/unified" + running["husk"]["cgroupPath"].str() + "/cgroup.events";

    require_ok(sb.husk({"pause", id}));
    CHECK(sb.state(id)["status"].str() == "paused");
    CHECK_THAT(read_file(events), Contains("frozen 1"));
    Output again = sb.husk({"pause", id});
    CHECK(again.exit_code == 1);
    CHECK_THAT(again.err, Contains("container not running"));

    require_ok(sb.husk({"resume", id}));
    CHECK(sb.state(id)["status"].str() == "running");
    CHECK_THAT(read_file(events), Contains("frozen 0"));
    Output twice = sb.husk({"resume", id});
    CHECK(twice.exit_code == 1);
    CHECK_THAT(twice.err, Contains("container not paused"));

    kill_and_delete(sb, id);
}

TEST_CASE("ps lists the host pids of every process in the container", "[integration][lifecycle]") {
    Sandbox sb;
    Bundle b = sb.bundle();
    b.config["process"]["args"] = Json::strings({"/bin/sh", "-c", "/probe sleep 60 & /probe sleep 60 & wait"});
    std::string id = sb.id("ps");
    Output created = sb.create(b, id);
    require_ok(created);
    require_ok(sb.husk({"start", id}));
    REQUIRE(wait_for_output(created, "}\n{"));
    long long init = sb.state(id)["pid"].num();

    Output json = sb.husk({"ps", "--format", "json", id});
    require_ok(json);
    Json pids = Json::parse(json.out);
    std::set<long long> seen;
    for (const Json& pid : pids.items()) seen.insert(pid.num());
    CHECK(seen.size() == 3);
    CHECK(seen.count(init) == 1);

    Output table = sb.husk({"ps", id});
    require_ok(table);
    CHECK(lines(table.out).size() == 4);
    CHECK_THAT(table.out, Contains("/probe sleep 60"));

    require_ok(sb.husk({"kill", "--all", id, "KILL"}));
    CHECK(sb.wait_for_status(id, "stopped")["status"].str() == "stopped");
    Output stopped = sb.husk({"ps", id});
    CHECK(stopped.exit_code == 1);
    CHECK_THAT(stopped.err, Contains("container not running"));
    require_ok(sb.husk({"delete", id}));
    check_nothing_left(sb);
}
