// VM tests: pause/resume, kill --all and delete --force as the kernel sees them (cgroup.events, cpu.stat,
// cgroup.procs, the cgroup directory itself).
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <thread>

#include "vm_support.hpp"

using namespace husk::test;
using namespace husk::test::vm;

namespace {

bool exists(const std::string& path) {
    struct stat st{};
    return stat(path.c_str(), &st) == 0;
}

// A container of three processes in the host's pid namespace (so killing init does not take the others
// with it): a shell and two sleeping probes.
struct Family {
    std::string id, cgroup;
    std::vector<pid_t> pids;
};

Family start_family(Sandbox& sb, Bundle& b, const std::string& name) {
    share_host_pid_namespace(b.config);
    b.config["process"]["args"] = Json::strings({"/bin/sh", "-c", "/probe sleep 60 & /probe sleep 60 & wait"});
    Family f{sb.id(name), "", {}};
    Output created = sb.create(b, f.id);
    require_ok(created);
    require_ok(sb.husk({"start", f.id}));
    REQUIRE(wait_for_output(created, "}\n{"));  // both sleepers are up
    f.cgroup = cgroup_dir(sb, f.id);
    for (const std::string& pid : lines(read_file(f.cgroup + "/cgroup.procs"))) {
        f.pids.push_back(static_cast<pid_t>(std::stol(pid)));
        sb.track_pid(f.pids.back());
    }
    REQUIRE(f.pids.size() == 3);
    return f;
}

}  // namespace

TEST_CASE("pause freezes the cgroup so a busy loop gets no cpu time, and resume thaws it", "[.vm][vm-lifecycle]") {
    require_vm();
    Sandbox sb;
    Bundle b = sb.bundle();
    b.config["process"]["args"] = Json::strings({"/bin/sh", "-c", "while :; do :; done"});
    std::string id = sb.id("pause");
    require_ok(sb.create(b, id));
    require_ok(sb.husk({"start", id}));
    std::string cgroup = cgroup_dir(sb, id);
    CHECK(keyed_value(cgroup + "/cgroup.events", "frozen") == 0);

    require_ok(sb.husk({"pause", id}));
    CHECK(sb.state(id)["status"].str() == "paused");
    CHECK(keyed_value(cgroup + "/cgroup.events", "frozen") == 1);
    long long frozen_usage = keyed_value(cgroup + "/cpu.stat", "usage_usec");
    std::this_thread::sleep_for(Ms(500));
    CHECK(keyed_value(cgroup + "/cpu.stat", "usage_usec") == frozen_usage);

    require_ok(sb.husk({"resume", id}));
    CHECK(sb.state(id)["status"].str() == "running");
    CHECK(keyed_value(cgroup + "/cgroup.events", "frozen") == 0);
    CHECK(wait_until([&] { return keyed_value(cgroup + "/cpu.stat", "usage_usec") > frozen_usage + 100000; }));

    kill_and_delete(sb, id);
    CHECK_FALSE(exists(cgroup));
    check_nothing_left(sb);
}

TEST_CASE("kill --all leaves no process in the cgroup, and delete removes the cgroup", "[.vm][vm-lifecycle]") {
    require_vm();
    Sandbox sb;
    Bundle b = sb.bundle();
    Family f = start_family(sb, b, "killall");

    require_ok(sb.husk({"kill", "--all", f.id, "KILL"}));
    CHECK(sb.wait_for_status(f.id, "stopped")["status"].str() == "stopped");
    CHECK(wait_until([&] { return keyed_value(f.cgroup + "/cgroup.events", "populated") == 0; }));
    CHECK(read_value(f.cgroup + "/cgroup.procs").empty());
    for (pid_t pid : f.pids) CHECK_FALSE(process_alive(pid));

    require_ok(sb.husk({"delete", f.id}));
    CHECK_FALSE(exists(f.cgroup));
    check_nothing_left(sb);
}

TEST_CASE("delete --force of a running or paused container leaves no process and no cgroup", "[.vm][vm-lifecycle]") {
    bool paused = GENERATE(false, true);
    require_vm();
    Sandbox sb;
    Bundle b = sb.bundle();
    Family f = start_family(sb, b, paused ? "forcepaused" : "forcerunning");
    if (paused) {
        require_ok(sb.husk({"pause", f.id}));
        REQUIRE(keyed_value(f.cgroup + "/cgroup.events", "frozen") == 1);
    }

    require_ok(sb.husk({"delete", "--force", f.id}));
    for (pid_t pid : f.pids) CHECK_FALSE(process_alive(pid));
    CHECK_FALSE(exists(f.cgroup));
    CHECK(sb.husk({"state", f.id}).exit_code == 1);
    check_nothing_left(sb);
}
