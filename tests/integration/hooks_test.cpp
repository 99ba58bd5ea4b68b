// Hooks: the six kinds run at their lifecycle step, in order, with the state JSON on stdin; failures
// and timeouts behave as runtime-spec says.
#include <catch2/catch.hpp>

#include <map>

#include "harness.hpp"

using namespace husk::test;
using Catch::Matchers::Contains;

namespace {

// hook.sh NAME LOG [STATUS [DELAY]]: after DELAY seconds, appends "NAME <state JSON from stdin>" to LOG and
// exits with STATUS.
constexpr std::string_view hook_script = R"sh(#!/bin/sh
state="$(tr -d '\n')"
sleep "${4:-0}"
printf '%s %s\n' "$1" "$state" >> "$2"
exit "${3:-0}"
)sh";

// Every hook logs to the same file: rootfs/hooks.log on the host, /hooks.log inside the container
// (startContainer hooks run in the container, after pivot_root).
struct HookedBundle {
    Bundle bundle;
    std::string log;  // host path

    HookedBundle(Sandbox& sb) : bundle(sb.bundle()), log(bundle.rootfs() + "/hooks.log") {
        write_file(bundle.dir + "/hook.sh", hook_script, 0755);
        write_file(bundle.rootfs() + "/hook.sh", hook_script, 0755);
        marker = sb.marker();
    }

    // A hook entry; startContainer paths resolve inside the container, the others on the host.
    Json hook(const std::string& kind, const std::string& name, int status = 0, int delay = 0) const {
        bool inside = kind == "startContainer";
        return Json::object({
            {"path", "/bin/sh"},
            {"args", Json::strings({"sh", inside ? "/hook.sh" : bundle.dir + "/hook.sh", name,
                                    inside ? "/hooks.log" : log, std::to_string(status), std::to_string(delay)})},
            {"env", Json::strings({"PATH=/usr/bin:/bin", marker})},
        });
    }
    void add(const std::string& kind, const std::string& name, int status = 0, int delay = 0) {
        bundle.config["hooks"][kind].push_back(hook(kind, name, status, delay));
    }

    // The logged hook names in order, and the state each one received.
    std::vector<std::pair<std::string, Json>> entries() const {
        std::vector<std::pair<std::string, Json>> out;
        for (const std::string& line : lines(read_file(log))) {
            size_t space = line.find(' ');
            out.emplace_back(line.substr(0, space), Json::parse(line.substr(space + 1)));
        }
        return out;
    }
    std::vector<std::string> names() const {
        std::vector<std::string> out;
        for (const auto& entry : entries()) out.push_back(entry.first);
        return out;
    }

    std::string marker;
};

}  // namespace

TEST_CASE("all six hook kinds run in lifecycle order with the container state on stdin", "[integration][hooks]") {
    Sandbox sb;
    HookedBundle h(sb);
    // The startContainer hook takes a second before it logs: a start that ran poststart before init executed the
    // workload (and so before this hook ended) would log poststart first, however fast the machine.
    for (const char* kind : {"prestart", "createRuntime", "createContainer", "startContainer", "poststart", "poststop"})
        h.add(kind, kind, 0, std::string_view(kind) == "startContainer" ? 1 : 0);
    h.bundle.config["process"]["args"] = Json::strings({"/probe", "sleep", "60"});
    std::string id = sb.id("hooks");

    Output created = sb.create(h.bundle, id);
    INFO(created.describe());
    REQUIRE(created.exit_code == 0);
    long long pid = sb.state(id)["pid"].num();
    // poststart runs after start, not during create.
    CHECK(h.names() == std::vector<std::string>{"prestart", "createRuntime", "createContainer"});

    REQUIRE(sb.husk({"start", id}).exit_code == 0);
    CHECK(h.names() == std::vector<std::string>{"prestart", "createRuntime", "createContainer", "startContainer",
                                                "poststart"});
    REQUIRE(sb.husk({"kill", id, "KILL"}).exit_code == 0);
    REQUIRE(sb.wait_for_status(id, "stopped")["status"].str() == "stopped");
    REQUIRE(sb.husk({"delete", id}).exit_code == 0);
    CHECK(h.names() == std::vector<std::string>{"prestart", "createRuntime", "createContainer", "startContainer",
                                                "poststart", "poststop"});

    const std::map<std::string, std::string> status = {
        {"prestart", "creating"}, {"createRuntime", "creating"}, {"createContainer", "creating"},
        {"startContainer", "created"}, {"poststart", "running"}, {"poststop", "stopped"}};
    for (const auto& [name, state] : h.entries()) {
        INFO(name << " got " << state.dump());
        CHECK(state["id"].str() == id);
        CHECK(state["bundle"].str() == h.bundle.dir);
        CHECK_FALSE(state["ociVersion"].str().empty());
        CHECK(state["status"].str() == status.at(name));
        // Hooks that run in the container's namespaces may see the pid as it is there (runc says 1).
        bool in_container = name == "createContainer" || name == "startContainer";
        if (name != "poststop") CHECK((state["pid"].num() == pid || (in_container && state["pid"].num() == 1)));
    }
    check_nothing_left(sb);
}

TEST_CASE("a failing prestart hook aborts create, runs poststop hooks and leaves nothing behind",
          "[integration][hooks]") {
    Sandbox sb;
    HookedBundle h(sb);
    h.add("prestart", "prestart-fails", 1);
    h.add("prestart", "prestart-never");
    h.add("poststop", "poststop");
    Output out = sb.create(h.bundle, sb.id("prestart"));
    INFO(out.describe());
    CHECK(out.exit_code != 0);
    CHECK(lines(out.err).size() == 1);
    CHECK_THAT(to_lower(out.err), Contains("prestart"));
    // runtime-spec lifecycle: a failing prestart hook stops the container and continues at
    // "destroy", followed by the poststop hooks; later prestart hooks do not run.
    CHECK(h.names() == std::vector<std::string>{"prestart-fails", "poststop"});
    check_nothing_left(sb);
}

TEST_CASE("a failing poststart hook is a warning: start succeeds", "[integration][hooks]") {
    Sandbox sb;
    HookedBundle h(sb);
    h.add("poststart", "poststart-fails", 1);
    h.add("poststart", "poststart-after");
    h.bundle.config["process"]["args"] = Json::strings({"/probe", "sleep", "60"});
    std::string id = sb.id("poststart");
    REQUIRE(sb.create(h.bundle, id).exit_code == 0);
    Output started = sb.husk({"start", id});
    INFO(started.describe());
    CHECK(started.exit_code == 0);
    CHECK(h.names() == std::vector<std::string>{"poststart-fails", "poststart-after"});
    CHECK(sb.state(id)["status"].str() == "running");
}

TEST_CASE("a failing startContainer hook skips the poststart hooks and start still returns", "[integration][hooks]") {
    Sandbox sb;
    HookedBundle h(sb);
    h.add("startContainer", "startContainer-fails", 1, 1);
    h.add("poststart", "poststart");
    h.bundle.config["process"]["args"] = Json::strings({"/probe", "sleep", "60"});
    std::string id = sb.id("startfails");
    REQUIRE(sb.create(h.bundle, id).exit_code == 0);
    Output started = sb.husk({"start", id});
    INFO(started.describe());
    // runc's start succeeds too; the failure is the container's exit. runtime-spec lifecycle: a failing
    // startContainer hook continues at destroy, so poststart never runs, and start says so.
    CHECK(started.exit_code == 0);
    CHECK_THAT(started.err, Contains("poststart hooks skipped"));
    CHECK(h.names() == std::vector<std::string>{"startContainer-fails"});
    Json state = sb.wait_for_status(id, "stopped");
    CHECK(state["husk"]["exit"]["reason"].str() == "setup-failed");
    REQUIRE(sb.husk({"delete", id}).exit_code == 0);
    check_nothing_left(sb);
}

TEST_CASE("a failing poststop hook is a warning: delete succeeds and later poststop hooks run",
          "[integration][hooks]") {
    Sandbox sb;
    HookedBundle h(sb);
    h.add("poststop", "poststop-fails", 1);
    h.add("poststop", "poststop-after");
    h.bundle.config["process"]["args"] = Json::strings({"/probe", "exit", "0"});
    std::string id = sb.id("poststop");
    REQUIRE(sb.create(h.bundle, id).exit_code == 0);
    REQUIRE(sb.husk({"start", id}).exit_code == 0);
    REQUIRE(sb.wait_for_status(id, "stopped")["status"].str() == "stopped");
    Output deleted = sb.husk({"delete", id});
    INFO(deleted.describe());
    CHECK(deleted.exit_code == 0);
    CHECK(h.names() == std::vector<std::string>{"poststop-fails", "poststop-after"});
    CHECK(sb.husk({"state", id}).exit_code == 1);
    check_nothing_left(sb);
}

TEST_CASE("a hook that exceeds its timeout is killed and create fails", "[integration][hooks]") {
    Sandbox sb;
    HookedBundle h(sb);
    Json slow = h.hook("createRuntime", "slow");
    slow["args"] = Json::strings({"sh", "-c", "exec sleep 60"});
    slow["timeout"] = 1;
    h.bundle.config["hooks"]["createRuntime"].push_back(slow);
    Output out = sb.create(h.bundle, sb.id("timeout"));
    INFO(out.describe());
    CHECK(out.exit_code != 0);
    CHECK(out.elapsed < Ms(15000));
    CHECK(lines(out.err).size() == 1);
    std::string err = to_lower(out.err);
    CHECK((err.find("timeout") != std::string::npos || err.find("timed out") != std::string::npos));
    check_nothing_left(sb);  // the hook's sleep carries the sandbox marker: it must be gone too
}
