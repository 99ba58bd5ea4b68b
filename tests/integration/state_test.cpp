// The OCI state document (runtime.md "State"): its keys, and the annotations it carries from config.json.
#include <catch2/catch.hpp>

#include <set>

#include "harness.hpp"

using namespace husk::test;
using Catch::Matchers::Matches;

TEST_CASE("state of a running container has exactly the OCI keys plus created, rootfs, owner and husk's object",
          "[integration][state]") {
    Sandbox sb;
    Bundle b = sb.bundle();
    b.config["process"]["args"] = Json::strings({"/probe", "sleep", "60"});
    b.config["annotations"] = Json::object({{"org.example.team", "storage"}, {"com.example.empty", ""}});
    std::string id = sb.id("state");
    Output created = sb.create(b, id);
    INFO(created.describe());
    REQUIRE(created.exit_code == 0);
    Output started = sb.husk({"start", id});
    INFO(started.describe());
    REQUIRE(started.exit_code == 0);

    Json st = sb.state(id);
    INFO("state: " << st.dump());
    std::set<std::string> keys;
    for (const auto& [key, value] : st.members()) keys.insert(key);
    // runtime.md's keys, the three runc and crun add, and husk's own object (docs/ARCHITECTURE.md, "State").
    CHECK(keys == std::set<std::string>{"ociVersion", "id", "status", "pid", "bundle", "annotations", "created",
                                        "rootfs", "owner", "husk"});
    CHECK(st["ociVersion"].str() == "1.3.0");
    CHECK(st["id"].str() == id);
    CHECK(st["status"].str() == "running");
    CHECK(st["pid"].num() > 0);
    CHECK(process_alive(static_cast<pid_t>(st["pid"].num())));
    CHECK(st["bundle"].str() == b.dir);
    CHECK(st["rootfs"].str() == b.rootfs());
    CHECK_THAT(st["created"].str(), Matches(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d))"));
    CHECK(st["owner"].type() == Json::Type::string);
    CHECK(st["husk"].is_object());

    const Json& annotations = st["annotations"];
    REQUIRE(annotations.is_object());
    CHECK(annotations.size() == 2);
    CHECK(annotations["org.example.team"].str() == "storage");
    CHECK(annotations["com.example.empty"].str() == "");

    Output killed = sb.husk({"kill", id, "KILL"});
    INFO(killed.describe());
    CHECK(killed.exit_code == 0);
    CHECK(sb.wait_for_status(id, "stopped")["status"].str() == "stopped");
    CHECK(sb.husk({"delete", id}).exit_code == 0);
    check_nothing_left(sb);
}
