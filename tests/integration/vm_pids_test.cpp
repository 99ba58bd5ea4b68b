// VM tests: linux.resources.pids.limit as the kernel enforces it (pids.events max), and `update --pids-limit`.
#include <catch2/catch.hpp>

#include <cerrno>

#include "vm_support.hpp"

using namespace husk::test;
using namespace husk::test::vm;

// The probe's `fork COUNT` forks until a fork fails and reports how many it got. In the cgroup are the
// shell (init) and the forking probe, so it gets pids.max - 2 children.
TEST_CASE("a fork loop stops at pids.max and the container's init survives", "[.vm][pids]") {
    require_vm();
    Sandbox sb;
    Bundle b = sb.bundle();
    b.config["linux"]["resources"]["pids"] = Json::object({{"limit", 16}});
    b.config["process"]["args"] = Json::strings({"/bin/sh", "-c", "/probe fork 1000; exec /probe sleep 60"});
    std::string id = sb.id("pids");
    Output created = sb.create(b, id);
    require_ok(created);
    long long init = sb.state(id)["pid"].num();
    std::string cgroup = cgroup_dir(sb, id);
    CHECK(read_value(cgroup + "/pids.max") == "16");
    require_ok(sb.husk({"start", id}));
    REQUIRE(wait_for_output(created, "sleeping"));

    std::vector<Json> r = json_lines(created.current_out());
    INFO(created.current_out());
    REQUIRE(r.size() == 2);
    CHECK(r[0]["forked"].num() == 14);
    CHECK(r[0]["errno"].num() == EAGAIN);
    CHECK(keyed_value(cgroup + "/pids.events", "max") > 0);
    Json st = sb.state(id);
    CHECK(st["status"].str() == "running");
    CHECK(st["pid"].num() == init);
    CHECK(process_alive(static_cast<pid_t>(init)));
    // The refused forks are a factor in the verdict, whatever stopped the container.
    long long hits = keyed_value(cgroup + "/pids.events", "max");
    require_ok(sb.husk({"kill", id, "KILL"}));
    st = wait_for_exit(sb, id);
    INFO("state: " << st.dump());
    CHECK(st["husk"]["exit"]["reason"].str() == "killed");
    REQUIRE(st["husk"]["factors"].size() == 1);
    CHECK(st["husk"]["factors"].at(0)["kind"].str() == "pids-limit");
    CHECK(st["husk"]["factors"].at(0)["count"].num() == hits);
    CHECK(st["husk"]["usage"]["pidsPeak"].num() == 16);
    require_ok(sb.husk({"delete", id}));
    check_nothing_left(sb);
}

TEST_CASE("update --pids-limit lowers pids.max of a running container and a fork loop stops earlier",
          "[.vm][pids][update]") {
    require_vm();
    Sandbox sb;
    Bundle b = sb.bundle();
    b.config["linux"]["resources"]["pids"] = Json::object({{"limit", 32}});
    b.config["process"]["args"] = Json::strings(
        {"/bin/sh", "-c", "/probe fork 1000; while [ ! -e /tmp/go ]; do sleep 0.1; done; /probe fork 1000; "
                          "exec /probe sleep 60"});
    std::string id = sb.id("pidsupdate");
    Output created = sb.create(b, id);
    require_ok(created);
    require_ok(sb.husk({"start", id}));
    REQUIRE(wait_for_output(created, "forked"));
    std::string cgroup = cgroup_dir(sb, id);
    long long events = keyed_value(cgroup + "/pids.events", "max");
    CHECK(events > 0);

    require_ok(sb.husk({"update", "--pids-limit", "8", id}));
    CHECK(read_value(cgroup + "/pids.max") == "8");
    touch_in_rootfs(b, "/tmp/go");
    REQUIRE(wait_for_output(created, "sleeping"));

    std::vector<Json> r = json_lines(created.current_out());
    INFO(created.current_out());
    REQUIRE(r.size() == 3);
    CHECK(r[0]["forked"].num() == 30);
    CHECK(r[1]["forked"].num() == 6);
    CHECK(r[1]["errno"].num() == EAGAIN);
    CHECK(keyed_value(cgroup + "/pids.events", "max") > events);
    CHECK(sb.state(id)["status"].str() == "running");
    kill_and_delete(sb, id);
    check_nothing_left(sb);
}

// podman 4.3 writes ociVersion 1.0.2-dev and pids.limit 0 for --pids-limit -1 (and 0): before runtime-spec 1.3
// that means no limit. Read as a 1.3 limit, pids.max would be 0 and init's clone3 would fail with EAGAIN.
TEST_CASE("a podman 4.3 config (ociVersion 1.0.2-dev, pids.limit 0) runs without a pids limit, and so does "
          "update --pids-limit 0 on it",
          "[.vm][pids][update]") {
    require_vm();
    Sandbox sb;
    Bundle b = sb.bundle();
    b.config["ociVersion"] = "1.0.2-dev";
    b.config["linux"]["resources"]["pids"] = Json::object({{"limit", 0}});
    b.config["process"]["args"] = Json::strings(
        {"/bin/sh", "-c", "/probe fork 40; while [ ! -e /tmp/go ]; do sleep 0.1; done; exec /probe sleep 60"});
    std::string id = sb.id("podmanpids");
    Output created = sb.create(b, id);
    require_ok(created);
    std::string cgroup = cgroup_dir(sb, id);
    CHECK(read_value(cgroup + "/pids.max") == "max");
    require_ok(sb.husk({"start", id}));
    REQUIRE(wait_for_output(created, "forked"));
    std::vector<Json> r = json_lines(created.current_out());
    INFO(created.current_out());
    REQUIRE(r.size() >= 1);
    CHECK(r[0]["forked"].num() == 40);

    // The container's ociVersion also decides how an update reads 0.
    require_ok(sb.husk({"update", "--pids-limit", "50", id}));
    CHECK(read_value(cgroup + "/pids.max") == "50");
    require_ok(sb.husk({"update", "--pids-limit", "0", id}));
    CHECK(read_value(cgroup + "/pids.max") == "max");
    touch_in_rootfs(b, "/tmp/go");
    REQUIRE(wait_for_output(created, "sleeping"));
    CHECK(sb.state(id)["status"].str() == "running");
    kill_and_delete(sb, id);
    check_nothing_left(sb);
}

// The same limit in a runtime-spec 1.3 config is a real limit of 0 (PR #1279): no task may join the cgroup,
// so init cannot even be created there, and create fails leaving nothing.
TEST_CASE("pids.limit 0 in a runtime-spec 1.3 config is a limit of 0", "[.vm][pids]") {
    require_vm();
    Sandbox sb;
    Bundle b = sb.bundle();
    b.config["linux"]["resources"]["pids"] = Json::object({{"limit", 0}});
    Output created = sb.create(b, sb.id("pidszero"));
    INFO(created.describe());
    CHECK(created.exit_code == 1);
    check_nothing_left(sb);
}
