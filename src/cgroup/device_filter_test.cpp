#include "cgroup/device_filter.hpp"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <vector>

#include "cgroup/test_cgroup.hpp"

using namespace husk::cgroup;
using husk::spec::DeviceRule;

namespace {

DeviceRule rule(bool allow, std::string type, std::optional<std::int64_t> major, std::optional<std::int64_t> minor,
                std::string access) {
    return DeviceRule{allow, std::move(type), major, minor, std::move(access)};
}

// runc's default list (libcontainer/specconv): deny everything, then the usual character devices.
std::vector<DeviceRule> runc_default_rules() {
    std::vector<DeviceRule> rules{rule(false, "", {}, {}, "rwm")};
    for (auto [major, minor] : {std::pair{1, 3}, {1, 5}, {1, 7}, {1, 8}, {1, 9}, {5, 0}, {5, 1}, {5, 2}})
        rules.push_back(rule(true, "c", major, minor, "rwm"));
    rules.push_back(rule(true, "c", 136, {}, "rwm"));
    rules.push_back(rule(true, "c", {}, {}, "m"));
    rules.push_back(rule(true, "b", {}, {}, "m"));
    return rules;
}

enum class Op { read, write, read_write, mknod };

// One device access tried inside the cgroup: open a node made beforehand, or mknod a new one.
struct Probe {
    Op op;
    char type;  // 'c' or 'b'
    unsigned major, minor;
};

// Device nodes in a scratch directory (on a filesystem without nodev), made from outside the cgroup.
class DeviceNodes {
public:
    DeviceNodes() {
        char dir[] = "/tmp/husk-devices-XXXXXX";
        REQUIRE(::mkdtemp(dir) != nullptr);
        dir_ = dir;
    }
    ~DeviceNodes() {
        for (const std::string& node : nodes_) ::unlink(node.c_str());
        ::rmdir(dir_.c_str());
    }
    std::string name(char type, unsigned major, unsigned minor, const char* purpose) {
        std::string path = dir_ + "/" + purpose + "-" + type + std::to_string(major) + "-" + std::to_string(minor);
        nodes_.push_back(path);
        return path;
    }
    std::string node(char type, unsigned major, unsigned minor) {
        std::string path = name(type, major, minor, "node");
        if (::access(path.c_str(), F_OK) != 0)
            REQUIRE(::mknod(path.c_str(), (type == 'b' ? S_IFBLK : S_IFCHR) | 0600, makedev(major, minor)) == 0);
        return path;
    }

private:
    std::string dir_;
    std::vector<std::string> nodes_;
};

// Attaches the program compiled from rules to a fresh cgroup, runs the probes in a child inside it and
// returns each probe's errno (0 = allowed).
std::vector<int> run_probes(const std::vector<DeviceRule>& rules, const std::vector<Probe>& probes) {
    testing::ScratchCgroups scratch;
    DeviceNodes nodes;
    CgroupPlan plan = scratch.plan("devices");
    plan.device_program = compile_device_program(rules).value();
    plan.has_device_rules = !rules.empty();
    auto cgroup = create_cgroup(plan);
    if (!cgroup) FAIL(cgroup.error().message());

    // Paths are built before the fork; the child only makes system calls.
    std::vector<std::string> paths;
    for (const Probe& p : probes)
        paths.push_back(p.op == Op::mknod ? nodes.name(p.type, p.major, p.minor, "mknod")
                                          : nodes.node(p.type, p.major, p.minor));
    std::vector<int> results = testing::probe_in_cgroup(cgroup->dir_fd(), probes.size(), [&](std::size_t i) {
        const Probe& p = probes[i];
        int rc;
        if (p.op == Op::mknod) {
            rc = ::mknod(paths[i].c_str(), (p.type == 'b' ? S_IFBLK : S_IFCHR) | 0600, makedev(p.major, p.minor));
        } else {
            int flags = p.op == Op::read ? O_RDONLY : p.op == Op::write ? O_WRONLY : O_RDWR;
            rc = ::open(paths[i].c_str(), flags | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
            if (rc >= 0) rc = ::close(rc);
        }
        return rc < 0 ? errno : 0;
    });
    REQUIRE(remove_cgroup(*cgroup));
    return results;
}

constexpr int allowed = 0;
// A denied device is EPERM; an allowed one may still fail for its own reasons (ENXIO: no driver).
int outcome(int err) { return err == EPERM ? EPERM : allowed; }

std::vector<int> outcomes(const std::vector<int>& errors) {
    std::vector<int> out;
    for (int e : errors) out.push_back(outcome(e));
    return out;
}

}  // namespace

TEST_CASE("compile_device_program refuses bad types, access strings and device numbers", "[cgroup]") {
    auto type = compile_device_program({rule(true, "x", {}, {}, "rwm")});
    REQUIRE_FALSE(type);
    CHECK(type.error().message() == "linux.resources.devices[0].type: unknown device type \"x\" (want a, c or b)");
    auto access = compile_device_program({rule(false, "a", {}, {}, "rwm"), rule(true, "c", 1, 3, "rwx")});
    REQUIRE_FALSE(access);
    CHECK(access.error().message() == "linux.resources.devices[1].access: \"rwx\" is not a combination of r, w, m");
    auto major = compile_device_program({rule(true, "c", -5, 3, "r")});
    REQUIRE_FALSE(major);
    CHECK(major.error().message() == "linux.resources.devices[0].major: -5 is not a device number");
}

TEST_CASE("a device list without any deny compiles to allow-all", "[cgroup]") {
    auto program = compile_device_program({rule(true, "c", 1, 3, "rwm")}).value();
    REQUIRE(program.size() == 8);  // prologue (6) + r0 = 1; exit
    CHECK(program[6].imm == 1);
}

TEST_CASE("the kernel enforces runc's default device list", "[cgroup]") {
    std::vector<Probe> probes{
        {Op::read_write, 'c', 1, 3},   // /dev/null
        {Op::read, 'c', 1, 5},         // /dev/zero
        {Op::read, 'c', 1, 11},        // /dev/kmsg: not in the list
        {Op::read, 'b', 7, 0},         // loop0: no block device is allowed
        {Op::read, 'c', 136, 42},      // a pty slave: 136:* allowed (ENXIO without such pty)
        {Op::mknod, 'c', 1, 11},       // c *:* m
        {Op::mknod, 'b', 7, 0},        // b *:* m
    };
    CHECK(outcomes(run_probes(runc_default_rules(), probes)) ==
          std::vector<int>{allowed, allowed, EPERM, EPERM, allowed, allowed, allowed});
}

TEST_CASE("a later device rule overrides an earlier one, per access bit", "[cgroup]") {
    std::vector<DeviceRule> rules{rule(false, "a", {}, {}, "rwm"), rule(true, "c", 1, 3, "rwm"),
                                  rule(false, "c", 1, 3, "w")};
    std::vector<Probe> probes{{Op::read, 'c', 1, 3}, {Op::write, 'c', 1, 3}, {Op::read_write, 'c', 1, 3},
                              {Op::mknod, 'c', 1, 3}};
    CHECK(outcomes(run_probes(rules, probes)) == std::vector<int>{allowed, EPERM, EPERM, allowed});
}

TEST_CASE("access granted by two separate rules allows an open that needs both", "[cgroup]") {
    std::vector<DeviceRule> rules{rule(false, "", {}, {}, "rwm"), rule(true, "c", 1, 3, "r"),
                                  rule(true, "c", 1, 3, "w")};
    std::vector<Probe> probes{{Op::read_write, 'c', 1, 3}, {Op::mknod, 'c', 1, 3}, {Op::read, 'c', 1, 5}};
    CHECK(outcomes(run_probes(rules, probes)) == std::vector<int>{allowed, EPERM, EPERM});
}

TEST_CASE("without a leading deny-all, devices are allowed unless a rule denies them", "[cgroup]") {
    std::vector<DeviceRule> rules{rule(false, "c", 1, 5, "rwm")};
    std::vector<Probe> probes{{Op::read, 'c', 1, 5}, {Op::read, 'c', 1, 11}, {Op::mknod, 'c', 1, 5}};
    CHECK(outcomes(run_probes(rules, probes)) == std::vector<int>{EPERM, allowed, EPERM});
}

TEST_CASE("a final allow-all overrides an earlier deny-all, and the reverse", "[cgroup]") {
    std::vector<Probe> probes{{Op::read, 'c', 1, 11}, {Op::read, 'b', 7, 0}, {Op::mknod, 'c', 1, 5}};
    CHECK(outcomes(run_probes({rule(false, "a", {}, {}, "rwm"), rule(true, "a", {}, {}, "rwm")}, probes)) ==
          std::vector<int>{allowed, allowed, allowed});
    CHECK(outcomes(run_probes({rule(true, "a", {}, {}, "rwm"), rule(false, "a", {}, {}, "rwm")}, probes)) ==
          std::vector<int>{EPERM, EPERM, EPERM});
}

TEST_CASE("mknod is denied for a device the list does not allow", "[cgroup]") {
    std::vector<DeviceRule> rules{rule(false, "", {}, {}, "rwm"), rule(true, "c", 1, 3, "rwm")};
    std::vector<Probe> probes{{Op::mknod, 'c', 1, 3}, {Op::mknod, 'c', 1, 5}, {Op::mknod, 'b', 1, 3}};
    CHECK(outcomes(run_probes(rules, probes)) == std::vector<int>{allowed, EPERM, EPERM});
}

TEST_CASE("type a with a major matches char and block devices of that major only", "[cgroup]") {
    std::vector<DeviceRule> rules{rule(false, "", {}, {}, "rwm"), rule(true, "a", 1, {}, "r")};
    std::vector<Probe> probes{{Op::read, 'c', 1, 11}, {Op::read, 'b', 1, 0}, {Op::read, 'b', 7, 0},
                              {Op::write, 'c', 1, 3}};
    CHECK(outcomes(run_probes(rules, probes)) == std::vector<int>{allowed, allowed, EPERM, EPERM});
}

TEST_CASE("no device rules attach no program and allow every device", "[cgroup]") {
    std::vector<Probe> probes{{Op::read, 'c', 1, 11}, {Op::read, 'b', 7, 0}};
    CHECK(outcomes(run_probes({}, probes)) == std::vector<int>{allowed, allowed});
}

namespace {

// What runc's rules mean, written apart from the compiler: for each access bit a probe needs, the last rule
// that matches the device and names the bit decides it; a bit no rule decides is allowed.
int expected_outcome(const std::vector<DeviceRule>& rules, const Probe& p) {
    std::string bits = p.op == Op::read ? "r" : p.op == Op::write ? "w" : p.op == Op::read_write ? "rw" : "m";
    for (char bit : bits) {
        for (auto it = rules.rbegin(); it != rules.rend(); ++it) {
            const bool type = it->type.empty() || it->type == "a" || it->type[0] == p.type;
            const bool major = !it->major || *it->major == -1 || *it->major == p.major;
            const bool minor = !it->minor || *it->minor == -1 || *it->minor == p.minor;
            if (!type || !major || !minor || it->access.find(bit) == std::string::npos) continue;
            if (!it->allow) return EPERM;
            break;
        }
    }
    return allowed;
}

}  // namespace

TEST_CASE("random device lists: the kernel allows exactly what the rules say, for every access", "[cgroup]") {
    // Seeded: a failure is reproducible, and the seed printed.
    const unsigned seed = GENERATE(take(1, random(1u, 1000000u)));
    INFO("seed " << seed);
    std::srand(seed);
    // Few enough values that rules share majors and minors (the compiler groups alike rules: a mask for minors
    // below 32, comparisons for the others).
    const std::vector<std::optional<std::int64_t>> numbers{std::nullopt, -1, 1, 5, 9, 40};
    const std::vector<std::string> types{"", "a", "c", "b", "c"};
    const std::vector<std::string> accesses{"r", "w", "m", "rw", "rm", "wm", "rwm", "rwm"};
    std::vector<Probe> probes;
    for (Op op : {Op::read, Op::write, Op::read_write, Op::mknod})
        for (char type : {'c', 'b'})
            for (unsigned major : {1u, 7u})
                for (unsigned minor : {1u, 5u, 9u, 40u}) probes.push_back({op, type, major, minor});
    for (int list = 0; list < 60; ++list) {
        std::vector<DeviceRule> rules;
        const int count = 1 + std::rand() % 8;
        for (int i = 0; i < count; ++i)
            rules.push_back(rule(std::rand() % 2 == 0, types[std::rand() % types.size()],
                                 numbers[std::rand() % numbers.size()], numbers[std::rand() % numbers.size()],
                                 accesses[std::rand() % accesses.size()]));
        std::vector<int> expected;
        for (const Probe& p : probes) expected.push_back(expected_outcome(rules, p));
        INFO("list " << list);
        CHECK(outcomes(run_probes(rules, probes)) == expected);
    }
}
