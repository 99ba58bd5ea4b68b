// --no-pivot: MS_MOVE of the rootfs over "/" and chroot instead of pivot_root (for a rootfs on ramfs). The
// container must see the same root and the same mount table as with pivot_root, and leave nothing behind.
#include <catch2/catch.hpp>

#include <cstdio>
#include <set>
#include <thread>

#include "harness.hpp"

using namespace husk::test;

namespace {

// Reads a marker the test wrote into the rootfs, writes one back, then reports.
constexpr const char* script = "/probe read /marker-from-host && /probe write /marker-from-container && /probe report";

std::vector<Json> json_lines(const std::string& text) {
    std::vector<Json> out;
    for (const std::string& line : lines(text))
        if (line.front() == '{') out.push_back(Json::parse(line));
    return out;
}

std::multiset<std::string> mount_destinations(const Json& report) {
    std::multiset<std::string> out;
    for (const Json& m : report["mounts"].items()) out.insert(m["dest"].str());
    return out;
}

void require_ok(const Output& out) {
    INFO(out.describe());
    REQUIRE(out.exit_code == 0);
}

}  // namespace

TEST_CASE("create --no-pivot runs the process with the bundle's rootfs as its root", "[integration][no-pivot]") {
    Sandbox sb;
    Bundle b = sb.bundle();
    b.config["process"]["args"] = Json::strings({"/bin/sh", "-c", script});
    write_file(b.rootfs() + "/marker-from-host", "written by the test\n");

    // The same bundle with pivot_root first: the mount table the --no-pivot container must match.
    Output pivoted = sb.run(b, sb.id("pivot"));
    require_ok(pivoted);
    std::vector<Json> with_pivot = json_lines(pivoted.out);
    REQUIRE(with_pivot.size() == 3);
    std::remove((b.rootfs() + "/marker-from-container").c_str());

    std::string id = sb.id("nopivot");
    Output created = sb.create(b, id, {"--no-pivot"});
    require_ok(created);
    require_ok(sb.husk({"start", id}));
    Json st = sb.wait_for_status(id, "stopped");
    REQUIRE(st["status"].str() == "stopped");
    // The monitor writes the exit once init is gone; the container's output is complete by then.
    for (int i = 0; i < 100 && !st["husk"].contains("exit"); ++i) {
        std::this_thread::sleep_for(Ms(20));
        st = sb.state(id);
    }
    INFO("container output: " << created.current_out() << "\nstate: " << st.dump());
    REQUIRE(st["husk"].contains("exit"));
    CHECK(st["husk"]["exit"]["code"].num() == 0);
    std::vector<Json> without_pivot = json_lines(created.current_out());
    REQUIRE(without_pivot.size() == 3);

    CHECK(without_pivot[0]["errno"].num() == 0);
    CHECK(without_pivot[0]["content"].str() == "written by the test\n");
    CHECK(without_pivot[1]["errno"].num() == 0);
    CHECK(read_file(b.rootfs() + "/marker-from-container") == "probe\n");
    const Json& report = without_pivot[2];
    CHECK(report["cwd"].str() == "/");
    // Nothing of the host's mount table (the old root stays underneath, out of reach) and no old-root
    // mount is visible: exactly the mounts that pivot_root gives.
    std::multiset<std::string> destinations = mount_destinations(report);
    CHECK(destinations.count("/") == 1);
    CHECK(destinations == mount_destinations(with_pivot[2]));

    require_ok(sb.husk({"delete", id}));
    check_nothing_left(sb);
}
