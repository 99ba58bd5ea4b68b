// VM tests: the eBPF device program (BPF_CGROUP_DEVICE) as the kernel enforces it inside the container,
// at create and after `update`.
#include <catch2/catch.hpp>

#include <cerrno>

#include "vm_support.hpp"

using namespace husk::test;
using namespace husk::test::vm;

namespace {

// /dev/hwrng (c 10:183) and sda (b 8:0) are outside the default allow list. Opening hwrng read-only needs
// no capability and has no side effect (unlike kmsg, which asks for CAP_SYSLOG under dmesg_restrict); sda
// need not exist, as the kernel asks the device program before the driver.
constexpr const char* probe_devices =
    "/probe mknod /dev/husk-hwrng c 10 183; /probe open /dev/husk-hwrng; "
    "/probe mknod /dev/husk-sda b 8 0; /probe open /dev/husk-sda; "
    "/probe mknod /dev/husk-null c 1 3; /probe write /dev/husk-null; "
    "/probe open /dev/null; /probe write /dev/zero; /probe open /dev/urandom";

Json allow_hwrng_rule() {
    return Json::object({{"allow", true}, {"type", "c"}, {"major", 10}, {"minor", 183}, {"access", "r"}});
}

}  // namespace

TEST_CASE("the device program denies opening a node outside the allow list and allows the default devices",
          "[.vm][devices]") {
    bool hwrng_allowed = GENERATE(false, true);
    require_vm();
    Sandbox sb;
    Bundle b = sb.bundle();
    add_capability(b.config, "CAP_MKNOD");  // so mknod is decided by the device program alone
    if (hwrng_allowed) b.config["linux"]["resources"]["devices"].push_back(allow_hwrng_rule());
    b.config["process"]["args"] = Json::strings({"/bin/sh", "-c", probe_devices});
    Output out = sb.run(b, sb.id(hwrng_allowed ? "hwrng" : "devices"));
    INFO(out.describe());
    REQUIRE(out.exit_code == 0);
    std::vector<Json> r = json_lines(out.out);
    REQUIRE(r.size() == 9);
    // mknod of any node is allowed: runc's and crun's defaults ("c *:* m", "b *:* m"), which husk keeps.
    CHECK(r[0]["errno"].num() == 0);
    CHECK(r[1]["errno"].num() == (hwrng_allowed ? 0 : EPERM));
    CHECK(r[2]["errno"].num() == 0);
    CHECK(r[3]["errno"].num() == EPERM);
    for (size_t i = 4; i < r.size(); ++i) {
        INFO(i << ": " << r[i].dump());
        CHECK(r[i]["errno"].num() == 0);
    }
    check_nothing_left(sb);
}

TEST_CASE("update keeps the device program, and update --resources with devices replaces it", "[.vm][devices][update]") {
    require_vm();
    Sandbox sb;
    Bundle b = sb.bundle();
    // Each round waits for its file, then opens hwrng (not allowed at create) and /dev/null.
    std::string round = "/probe open /dev/husk-hwrng; /probe open /dev/null; ";
    b.config["process"]["args"] = Json::strings(
        {"/bin/sh", "-c",
         "/probe mknod /dev/husk-hwrng c 10 183; " + round +
             "while [ ! -e /tmp/go1 ]; do sleep 0.1; done; " + round +
             "while [ ! -e /tmp/go2 ]; do sleep 0.1; done; " + round + "exec /probe sleep 60"});
    add_capability(b.config, "CAP_MKNOD");
    std::string id = sb.id("devupdate");
    Output created = sb.create(b, id);
    require_ok(created);
    require_ok(sb.husk({"start", id}));
    REQUIRE(wait_until([&] { return json_lines(created.current_out()).size() >= 3; }));

    // An update that does not mention devices must not drop the program.
    require_ok(sb.husk({"update", "--pids-limit", "100", id}));
    touch_in_rootfs(b, "/tmp/go1");
    REQUIRE(wait_until([&] { return json_lines(created.current_out()).size() >= 5; }));

    std::string resources = sb.dir() + "/devices.json";
    write_file(resources, Json::object({{"devices", Json::array({Json::object({{"allow", false}, {"access", "rwm"}}),
                                                                 allow_hwrng_rule()})}})
                              .dump());
    require_ok(sb.husk({"update", "--resources", resources, id}));
    touch_in_rootfs(b, "/tmp/go2");
    REQUIRE(wait_for_output(created, "sleeping"));

    std::vector<Json> r = json_lines(created.current_out());
    INFO(created.current_out());
    REQUIRE(r.size() == 8);
    CHECK(r[0]["errno"].num() == 0);      // mknod
    CHECK(r[1]["errno"].num() == EPERM);  // at create
    CHECK(r[2]["errno"].num() == 0);
    CHECK(r[3]["errno"].num() == EPERM);  // after update --pids-limit
    CHECK(r[4]["errno"].num() == 0);
    CHECK(r[5]["errno"].num() == 0);      // after update --resources allowing it
    CHECK(r[6]["errno"].num() == 0);      // the defaults stay allowed
    kill_and_delete(sb, id);
    check_nothing_left(sb);
}
