// VM tests: a process `husk exec` starts is in the container's cgroup from its first instruction, so the
// container's limits count it (pids.max here) and its usage is the container's.
#include <catch2/catch.hpp>

#include <cerrno>

#include "vm_support.hpp"

using namespace husk::test;
using namespace husk::test::vm;

// init (the sleeping probe) and the exec'd forking probe are both in the cgroup: the probe gets
// pids.max - 2 children, and the refused forks count in pids.events.
TEST_CASE("an exec'd process counts against the container's pids.max", "[.vm][pids][exec]") {
    require_vm();
    Sandbox sb;
    Bundle b = sb.bundle();
    b.config["linux"]["resources"]["pids"] = Json::object({{"limit", 8}});
    b.config["process"]["args"] = Json::strings({"/probe", "sleep", "60"});
    std::string id = sb.id("exec-pids");
    Output created = sb.create(b, id);
    require_ok(created);
    sb.track_pid(static_cast<pid_t>(sb.state(id)["pid"].num()));
    require_ok(sb.husk({"start", id}));
    std::string cgroup = cgroup_dir(sb, id);
    Output out = sb.husk({"exec", id, "/probe", "fork", "1000"});
    require_ok(out);
    Json r = last_json_line(out.out);
    INFO(r.dump());
    CHECK(r["forked"].num() == 6);
    CHECK(r["errno"].num() == EAGAIN);
    CHECK(keyed_value(cgroup + "/pids.events", "max") > 0);
    kill_and_delete(sb, id);
}
