// A create that dies half-way (SIGKILL at any point) and a state filesystem that is full: whatever is left
// must be visible (`list`), and `kill` / `delete --force` must reach it and remove every trace.
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <random>
#include <thread>

#include "harness.hpp"

namespace husk::test {
namespace {

// The container's status in `husk list --format json`, "" when it is not listed.
std::string listed_status(Sandbox& sb, const std::string& id) {
    Output out = sb.husk({"list", "--format", "json"});
    if (out.exit_code != 0) return "list failed: " + out.describe();
    Json all = Json::parse(out.out);
    for (std::size_t i = 0; i < all.size(); ++i)
        if (all.at(i)["id"].str() == id) return all.at(i)["status"].str();
    return "";
}

std::string wait_listed_status(Sandbox& sb, const std::string& id, std::string_view want) {
    std::string status;
    for (int i = 0; i < 500 && (status = listed_status(sb, id)) != want; ++i) std::this_thread::sleep_for(Ms(20));
    return status;
}

// A tmpfs mounted for one test; unmounted (lazily) however the test ends.
struct TinyTmpfs {
    std::string path;
    explicit TinyTmpfs(std::string where, const char* size) : path(std::move(where)) {
        ::mkdir(path.c_str(), 0700);
        std::string options = std::string("size=") + size + ",mode=0700";
        if (::mount("tmpfs", path.c_str(), "tmpfs", MS_NOSUID | MS_NODEV, options.c_str()) != 0) path.clear();
    }
    ~TinyTmpfs() { unmount(); }
    void unmount() {
        if (!path.empty()) ::umount2(path.c_str(), MNT_DETACH);
        path.clear();
    }
    // Writes until the filesystem refuses (ENOSPC).
    void fill() const {
        std::ofstream filler(path + "/filler", std::ios::binary);
        std::string block(4096, 'x');
        while (filler.write(block.data(), static_cast<std::streamsize>(block.size()))) filler.flush();
    }
    void make_room() const { ::unlink((path + "/filler").c_str()); }
};

// husk with its --root on the tiny tmpfs. The sandbox's own cleanup deletes under its --root only, so a test
// deletes these itself (DeleteOnExit); they are gone with the tmpfs anyway.
Output husk_in(Sandbox& sb, const TinyTmpfs& tiny, std::vector<std::string> args) {
    args.insert(args.begin(), {paths().husk, "--root", tiny.path});
    return sb.command(args);
}

struct DeleteOnExit {
    std::function<void()> body;
    ~DeleteOnExit() { body(); }
};

}  // namespace

TEST_CASE("delete --force removes everything a create killed at a random point left behind", "[crash]") {
    Sandbox sb;
    // Half the runs with a cgroup (the default /husk/<id>, named with the sandbox suffix, so leftovers() sees
    // it), half without one, where only the recorded identities of monitor and init lead to the processes.
    Bundle with_cgroup = sb.bundle("cgroup");
    with_cgroup.write();
    Bundle without = sb.bundle("nocgroup");
    without.config["linux"].erase("resources");
    without.write();
    std::string id = sb.id("crash");

    // The kills must land anywhere in create, however fast this machine runs it: the delays span 0-50 ms or
    // a little more than one whole create, whichever is longer.
    Ms whole{0};
    for (bool cgroup : {true, false}) {
        std::vector<std::string> args;
        if (!cgroup) args = {"--cgroup-manager", "disabled"};
        args.insert(args.end(), {"create", "--bundle", cgroup ? with_cgroup.dir : without.dir, id});
        Output created = sb.husk(args);
        INFO(created.describe());
        REQUIRE(created.exit_code == 0);
        whole = std::max(whole, created.elapsed);
        REQUIRE(sb.husk({"delete", "--force", id}).exit_code == 0);
    }
    const int max_delay_us = std::max(50000, static_cast<int>(whole.count() * 1200));

    std::uint64_t seed = std::random_device{}();
    if (const char* fixed = std::getenv("HUSK_CRASH_SEED")) seed = std::strtoull(fixed, nullptr, 10);
    std::mt19937_64 random(seed);
    std::uniform_int_distribution<int> delay_us(0, max_delay_us);
    WARN("crash test seed " << seed << " (set HUSK_CRASH_SEED to replay); delays 0-" << max_delay_us << " us");

    constexpr int runs = 200;
    int completed = 0;
    for (int run = 0; run < runs; ++run) {
        bool cgroup = run % 2 == 0;
        int delay = delay_us(random);
        INFO("seed " << seed << ", run " << run << ", SIGKILL after " << delay << " us, "
                     << (cgroup ? "with a cgroup" : "--cgroup-manager disabled"));
        std::vector<std::string> args;
        if (!cgroup) args = {"--cgroup-manager", "disabled"};
        args.insert(args.end(), {"create", "--bundle", cgroup ? with_cgroup.dir : without.dir, id});
        {
            Process create = sb.spawn_husk(args);
            std::this_thread::sleep_for(std::chrono::microseconds(delay));
            ::kill(create.pid(), SIGKILL);
            if (create.wait().exit_code == 0) ++completed;
        }
        Output deleted = sb.husk({"delete", "--force", id});
        INFO(deleted.describe());
        REQUIRE(deleted.exit_code == 0);
        std::vector<std::string> left = sb.leftovers();
        INFO(join_lines(left));
        REQUIRE(left.empty());
    }
    // The delays must reach into create, not only before or after it.
    CHECK(completed < runs);
}

TEST_CASE("list shows a create in progress as creating, and as stopped once its process died", "[crash]") {
    Sandbox sb;
    Bundle bundle = sb.bundle();
    // A prestart hook that waits for a file holds create half-way, deterministically.
    std::string go = sb.dir() + "/go";
    Json hook;
    hook["path"] = "/bin/sh";
    hook["args"] = Json::strings({"sh", "-c", "while [ ! -e '" + go + "' ]; do sleep 0.02; done"});
    bundle.config["hooks"]["prestart"].push_back(hook);
    bundle.write();
    std::string id = sb.id("half");

    Process create = sb.spawn_husk({"create", "--bundle", bundle.dir, id});
    CHECK(wait_listed_status(sb, id, "creating") == "creating");
    CHECK(sb.state(id)["status"].str() == "creating");

    ::kill(create.pid(), SIGKILL);
    create.wait();
    CHECK(wait_listed_status(sb, id, "stopped") == "stopped");
    Json state = sb.state(id);
    CHECK(state["pid"].num() == 0);
    CHECK(state["husk"]["exit"]["reason"].str() == "setup-failed");

    write_file(go, "");  // the hook ends; its monitor is killed by delete or has noticed create is gone
    Output deleted = sb.husk({"delete", id});
    INFO(deleted.describe());
    CHECK(deleted.exit_code == 0);
    check_nothing_left(sb);
}

TEST_CASE("kill and delete --force work on a full state filesystem", "[crash]") {
    Sandbox sb;
    TinyTmpfs tiny(sb.dir() + "/tiny-root", "256k");
    REQUIRE_FALSE(tiny.path.empty());
    auto husk = [&](std::vector<std::string> args) { return husk_in(sb, tiny, std::move(args)); };
    Bundle bundle = sb.bundle();
    // The workload ends politely on SIGTERM once the test lets it (the file /release appears), so the verdict
    // is written after the filesystem has room again.
    bundle.config["process"]["args"] = Json::strings(
        {"/bin/sh", "-c", "trap 'while [ ! -e /release ]; do sleep 0.02; done; exit 0' TERM; while :; do sleep 0.05; done"});
    bundle.write();
    std::string polite = sb.id("polite"), other = sb.id("other");
    DeleteOnExit delete_on_exit{[&] {
        for (const std::string& id : {polite, other})
            if (!tiny.path.empty()) husk({"delete", "--force", id});
    }};
    for (const std::string& id : {polite, other}) {
        Output created = husk({"create", "--bundle", bundle.dir, id});
        INFO(created.describe());
        REQUIRE(created.exit_code == 0);
        REQUIRE(husk({"start", id}).exit_code == 0);
    }

    tiny.fill();
    Output killed = husk({"kill", polite, "TERM"});
    INFO(killed.describe());
    CHECK(killed.exit_code == 0);
    Output forced = husk({"delete", "--force", other});
    INFO(forced.describe());
    CHECK(forced.exit_code == 0);
    struct stat gone {};
    CHECK(::stat((tiny.path + "/" + other).c_str(), &gone) != 0);

    // With room again the monitor records the exit: the workload exited 0 after a SIGTERM husk sent but could
    // not record, so the verdict may say neither `exited` (by itself) nor `killed` (it has no record of it).
    tiny.make_room();
    write_file(bundle.rootfs() + "/release", "");
    Json state;
    for (int i = 0; i < 500; ++i) {
        Output out = husk({"state", polite});
        REQUIRE(out.exit_code == 0);
        state = Json::parse(out.out);
        if (state["status"].str() == "stopped" && state["husk"].contains("finished")) break;
        std::this_thread::sleep_for(Ms(20));
    }
    CHECK(state["husk"]["exit"]["reason"].str() == "unknown");
    CHECK(state["husk"]["exit"]["code"].num() == 0);
    CHECK(husk({"delete", polite}).exit_code == 0);
    tiny.unmount();
    check_nothing_left(sb);
}

TEST_CASE("a verdict the monitor cannot write is reported in state, not dropped", "[crash]") {
    Sandbox sb;
    TinyTmpfs tiny(sb.dir() + "/tiny-root", "256k");
    REQUIRE_FALSE(tiny.path.empty());
    auto husk = [&](std::vector<std::string> args) { return husk_in(sb, tiny, std::move(args)); };
    Bundle bundle = sb.bundle();
    // The workload exits 0 once the test lets it (/release appears), after the state filesystem filled up.
    bundle.config["process"]["args"] = Json::strings({"/bin/sh", "-c", "while [ ! -e /release ]; do sleep 0.02; done"});
    bundle.write();
    std::string id = sb.id("unwritten");
    DeleteOnExit delete_on_exit{[&] {
        if (!tiny.path.empty()) husk({"delete", "--force", id});
    }};
    Output created = husk({"create", "--bundle", bundle.dir, id});
    INFO(created.describe());
    REQUIRE(created.exit_code == 0);
    REQUIRE(husk({"start", id}).exit_code == 0);

    tiny.fill();
    write_file(bundle.rootfs() + "/release", "");
    Json state;
    for (int i = 0; i < 500; ++i) {
        Output out = husk({"state", id});
        REQUIRE(out.exit_code == 0);
        state = Json::parse(out.out);
        if (state["status"].str() == "stopped" && state["husk"].contains("exit")) break;
        std::this_thread::sleep_for(Ms(20));
    }
    INFO(state.dump());
    // Not the "killed, or the host rebooted" of a lost monitor: the monitor said why it wrote no verdict.
    CHECK(state["husk"]["exit"]["reason"].str() == "unknown");
    CHECK_THAT(state["husk"]["exit"]["detail"].str(), Catch::Matchers::Contains("could not record"));
    CHECK(::access((tiny.path + "/" + id + "/monitor-error").c_str(), F_OK) == 0);

    tiny.make_room();
    CHECK(husk({"delete", id}).exit_code == 0);
    tiny.unmount();
    check_nothing_left(sb);
}

}  // namespace husk::test

namespace husk::test {
namespace {

// rm -rf while husk may still write in it (a record replaced by rename makes a file as rm lists the directory,
// which then is not empty): again until it is gone.
void remove_tree(Sandbox& sb, const std::string& path) {
    for (int i = 0; i < 50 && ::access(path.c_str(), F_OK) == 0; ++i) {
        if (sb.command({"/bin/rm", "-rf", path}).exit_code == 0) break;
        std::this_thread::sleep_for(Ms(20));
    }
    REQUIRE(::access(path.c_str(), F_OK) != 0);
}

}  // namespace

TEST_CASE("a state root removed under a running sandbox: its cgroup is removed, and the run says its record was lost",
          "[integration][crash]") {
    Sandbox sb;
    REQUIRE(::chmod(sb.dir().c_str(), 0711) == 0);  // the sandbox's ids must reach its root (husk(8) SANDBOX)
    const std::string root = sb.dir() + "/lost-root";
    const std::string id = sb.id("lostroot"), verdict = sb.dir() + "/verdict.json";
    Process run = sb.spawn_command({paths().husk, "--root", root, "sandbox", "--id", id, "--verdict", verdict, "--",
                                    "/bin/sleep", "2"});
    const std::string cgroup = cgroup2_mount() + "/husk/" + id;
    // Once the program runs (start wrote `started` into the record).
    // (The first record has "started":"" already.)
    std::string record;
    auto started = [&] {
        record = read_file(root + "/" + id + "/state.json");
        return record.find("\"started\":\"2") != std::string::npos;
    };
    for (int i = 0; i < 1000 && !started(); ++i) std::this_thread::sleep_for(Ms(10));
    if (::access(cgroup.c_str(), F_OK) != 0) {
        Output early = run.wait();
        FAIL("no cgroup " << cgroup << " while the sandbox runs: " << early.describe() << "; record: " << record);
    }
    remove_tree(sb, root);
    Output out = run.wait();
    INFO(out.describe());
    CHECK(out.exit_code == 1);
    CHECK_THAT(out.err, Catch::Contains("was removed while it ran, so its record is lost; husk removed its cgroup"));
    Json v = Json::parse(read_file(verdict));
    CHECK(v["status"].num() == 1);
    CHECK_THAT(v["exit"]["detail"].str(), Catch::Contains("its record is lost"));
    CHECK(::access(cgroup.c_str(), F_OK) != 0);
    check_nothing_left(sb);
}

TEST_CASE("a state root removed under a created container: its monitor removes the cgroup when init ends",
          "[integration][crash]") {
    Sandbox sb;
    const std::string root = sb.dir() + "/lost-root";
    Bundle b = sb.bundle();
    b.config["process"]["args"] = Json::strings({"/probe", "sleep", "1"});
    b.write();
    const std::string id = sb.id("lostmon"), pid_file = sb.dir() + "/init.pid";
    Output created = sb.command({paths().husk, "--root", root, "create", "--bundle", b.dir, "--pid-file", pid_file, id});
    INFO(created.describe());
    REQUIRE(created.exit_code == 0);
    REQUIRE(sb.command({paths().husk, "--root", root, "start", id}).exit_code == 0);
    const std::string cgroup =
        cgroup2_mount() + Json::parse(read_file(root + "/" + id + "/state.json"))["cgroupPath"].str();
    REQUIRE(::access(cgroup.c_str(), F_OK) == 0);
    remove_tree(sb, root);
    bool removed = false;
    for (int i = 0; i < 1000 && !(removed = ::access(cgroup.c_str(), F_OK) != 0); ++i) std::this_thread::sleep_for(Ms(10));
    CHECK(removed);
    check_nothing_left(sb);
}

}  // namespace husk::test
