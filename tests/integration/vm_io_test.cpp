// VM tests: linux.resources.blockIO on a real block device of the VM: null_blk's /dev/nullb0 (run-in-vm.sh
// --module null_blk; with --module bfq the device can use BFQ, whose io.bfq.weight takes blkio weights as
// they are). Weights land in io.bfq.weight (io.weight without BFQ), throttles in io.max, and the kernel
// holds a reader to the throttled rate.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <chrono>

#include "vm_support.hpp"

using namespace husk::test;
using namespace husk::test::vm;

namespace {

constexpr long long mib = 1024 * 1024;

struct BlockDevice {
    std::string path;  // "/dev/nullb0"
    long long major = 0, minor = 0;
    std::string numbers() const { return std::to_string(major) + ":" + std::to_string(minor); }
};

// /dev/nullb0, switched to the BFQ scheduler when the module is there.
BlockDevice null_blk() {
    std::string dev = read_value("/sys/block/nullb0/dev");
    INFO("/sys/block/nullb0 is missing: run the VM with --module null_blk (tests/vm/meson.build does)");
    REQUIRE_FALSE(dev.empty());
    BlockDevice d{"/dev/nullb0", std::stoll(dev.substr(0, dev.find(':'))), std::stoll(dev.substr(dev.find(':') + 1))};
    std::string scheduler = "/sys/block/nullb0/queue/scheduler";
    if (read_value(scheduler).find("bfq") != std::string::npos) write_file(scheduler, "bfq");
    return d;
}

Json device(const BlockDevice& d, const char* key, long long value) {
    return Json::object({{"major", d.major}, {"minor", d.minor}, {key, value}});
}

}  // namespace

TEST_CASE("blockIO weights and throttles land in io.bfq.weight (or io.weight) and io.max", "[.vm][io]") {
    require_vm();
    BlockDevice d = null_blk();
    Sandbox sb;
    Bundle b = sb.bundle();
    b.config["linux"]["resources"]["blockIO"] = Json::object({
        {"weight", 500},
        {"weightDevice", Json::array({device(d, "weight", 300)})},
        {"throttleReadBpsDevice", Json::array({device(d, "rate", 2 * mib)})},
        {"throttleWriteBpsDevice", Json::array({device(d, "rate", mib)})},
        {"throttleReadIOPSDevice", Json::array({device(d, "rate", 1000)})},
        {"throttleWriteIOPSDevice", Json::array({device(d, "rate", 100)})},
    });
    b.config["process"]["args"] = Json::strings({"/probe", "sleep", "60"});
    std::string id = sb.id("io");
    Output created = sb.create(b, id);
    require_ok(created);
    std::string cgroup = cgroup_dir(sb, id);
    CHECK(read_value(cgroup + "/io.max") ==
          d.numbers() + " rbps=2097152 wbps=1048576 riops=1000 wiops=100");
    struct stat st{};
    if (stat((cgroup + "/io.bfq.weight").c_str(), &st) == 0) {
        CHECK(read_value(cgroup + "/io.bfq.weight") == "default 500\n" + d.numbers() + " 300");
    } else {
        // runc's linear conversion of [10, 1000] to [1, 10000]: 500 → 4950, 300 → 2930.
        CHECK(read_value(cgroup + "/io.weight") == "default 4950\n" + d.numbers() + " 2930");
    }
    require_ok(sb.husk({"delete", "--force", id}));
    check_nothing_left(sb);
}

TEST_CASE("throttleReadBpsDevice holds a direct reader of the device to its rate (io.stat)", "[.vm][io]") {
    require_vm();
    BlockDevice d = null_blk();
    Sandbox sb;
    Bundle b = sb.bundle();
    b.config["linux"]["resources"]["blockIO"] =
        Json::object({{"throttleReadBpsDevice", Json::array({device(d, "rate", mib)})}});
    // The node in the container, and the device program's permission to read it.
    b.config["linux"]["devices"] = Json::array({Json::object(
        {{"path", "/dev/husk-blk"}, {"type", "b"}, {"major", d.major}, {"minor", d.minor}, {"fileMode", 0600}})});
    // 3 MiB at 1 MiB/s: close to 3 s, where the device alone takes milliseconds.
    b.config["process"]["args"] =
        Json::strings({"/bin/dd", "if=/dev/husk-blk", "of=/dev/null", "bs=64k", "count=48", "iflag=direct"});
    std::string id = sb.id("throttle");
    Output created = sb.create(b, id);
    require_ok(created);
    std::string cgroup = cgroup_dir(sb, id);
    auto started = std::chrono::steady_clock::now();
    require_ok(sb.husk({"start", id}));
    Json st = sb.wait_for_status(id, "stopped", Ms(30000));
    auto elapsed = std::chrono::duration_cast<Ms>(std::chrono::steady_clock::now() - started);
    INFO(created.current_out() << "\nio.stat: " << read_file(cgroup + "/io.stat") << "elapsed " << elapsed.count()
                               << " ms");
    REQUIRE(st["status"].str() == "stopped");
    CHECK(st["husk"]["exit"]["code"].num() == 0);
    CHECK(elapsed >= Ms(1800));  // blk-throttle lets the first slice through early; the rest waits
    bool counted = false;
    for (const std::string& line : lines(read_file(cgroup + "/io.stat")))
        if (line.rfind(d.numbers() + " ", 0) == 0) counted = line.find("rbytes=3145728 ") != std::string::npos;
    CHECK(counted);
    require_ok(sb.husk({"delete", id}));
    check_nothing_left(sb);
}
