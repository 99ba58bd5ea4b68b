#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>

#include "base/proc_stat.hpp"
#include "container/observe.hpp"
#include "husk/container.hpp"
#include "state/process_identity.hpp"
#include "state/state_dir.hpp"

using namespace husk;

namespace {

struct TempRoot {
    std::string path;
    TempRoot() {
        char tmpl[] = "/tmp/husk-list-test-XXXXXX";
        path = mkdtemp(tmpl);
    }
    ~TempRoot() { std::system(("rm -rf '" + path + "'").c_str()); }
};

ContainerId id(const std::string& text) { return ContainerId::parse(text).value(); }

// What list printed before it read records under the root's fd: every id opened as a StateDir, its record
// read there, observe() of both.
std::vector<ContainerSummary> listed_through_state_dirs(const std::string& root) {
    std::vector<ContainerSummary> out;
    for (const auto& one : state::list_ids(root)) {
        auto dir = state::StateDir::open_unlocked(root, one);
        if (!dir) continue;
        std::optional<state::Record> record;
        if (auto r = dir->read_record()) record = std::move(*r);
        auto observed = container::observe(*dir, record);
        out.push_back({.id = one, .pid = observed.pid, .status = container::status_name(observed.status),
                       .bundle = record ? record->bundle : "", .created = record ? record->created : "",
                       .owner = record ? record->owner : ""});
    }
    return out;
}

std::string describe(const std::vector<ContainerSummary>& list) {
    std::string out;
    for (const auto& c : list)
        out += c.id.str() + " " + std::to_string(c.pid) + " " + c.status + " " + c.bundle + " " + c.created + " " +
               c.owner + "\n";
    return out;
}

void make_dir(const std::string& root, const std::string& name, bool lock = true) {
    ::mkdir((root + "/" + name).c_str(), 0711);
    if (lock) std::ofstream(root + "/" + name + "/lock").flush();
}

void write_record(const std::string& root, const std::string& name, const state::Record& record) {
    std::ofstream(root + "/" + name + "/state.json") << state::encode_record(record);
}

// A container as create leaves it: its directory, the lock file, the record.
void add_container(const std::string& root, const std::string& name, const state::Record& record) {
    make_dir(root, name);
    write_record(root, name, record);
}

state::Record record_of(const std::string& name) {
    state::Record r;
    r.id = name;
    r.bundle = "/bundles/" + name;
    r.created = "2026-01-01T00:00:00.000000000Z";
    r.owner = "root";
    r.boot_id = state::read_boot_id().value();
    return r;
}

}  // namespace

TEST_CASE("list reports every kind of state dir as reading each one through StateDir did", "[list]") {
    TempRoot root;
    const pid_t self = ::getpid();
    const std::uint64_t self_start = read_proc_stat(self).value().start_time;

    // init is this process, or (start time off by one) a process that reused its pid.
    auto running = record_of("running");
    running.pid = self;
    running.pid_start_time = self_start;
    add_container(root.path, "running", running);
    add_container(root.path, "created", running);
    REQUIRE(::mkfifo((root.path + "/created/exec.fifo").c_str(), 0600) == 0);
    auto stopped = record_of("stopped");
    stopped.pid = self;
    stopped.pid_start_time = self_start + 1;
    stopped.exit.emplace().reason = "exited";
    add_container(root.path, "stopped", stopped);

    // Create has not committed: its process is this one, or gone.
    auto creating = record_of("creating");
    creating.creator_pid = self;
    creating.creator_start_time = self_start;
    add_container(root.path, "creating", creating);
    creating.creator_start_time = self_start + 1;
    add_container(root.path, "abandoned", creating);

    make_dir(root.path, "no-record");
    make_dir(root.path, "no-record-locked");
    int held = ::open((root.path + "/no-record-locked/lock").c_str(), O_RDWR | O_CLOEXEC);
    REQUIRE(held >= 0);
    REQUIRE(::flock(held, LOCK_EX) == 0);

    make_dir(root.path, "corrupt");
    std::ofstream(root.path + "/corrupt/state.json") << "{\"id\": 5";
    make_dir(root.path, "wrong-type");
    std::ofstream(root.path + "/wrong-type/state.json") << "{\"id\":\"wrong-type\",\"bundle\":\"/b\",\"exit\":7}";

    make_dir(root.path, "no-lock", false);
    write_record(root.path, "no-lock", stopped);

    add_container(root.path, "symlinked-record", record_of("elsewhere"));
    const std::string record = root.path + "/symlinked-record/state.json";
    REQUIRE(::rename(record.c_str(), (root.path + "/elsewhere.json").c_str()) == 0);
    REQUIRE(::symlink("../elsewhere.json", record.c_str()) == 0);
    REQUIRE(::symlink("stopped", (root.path + "/symlinked-dir").c_str()) == 0);

    auto listed = list_containers(Runtime{.root = root.path});
    INFO(describe(listed));
    CHECK(describe(listed) == describe(listed_through_state_dirs(root.path)));
    CHECK(describe(listed) ==
          "abandoned 0 stopped /bundles/creating 2026-01-01T00:00:00.000000000Z root\n"
          "corrupt 0 stopped   \n"
          "created " + std::to_string(self) + " created /bundles/running 2026-01-01T00:00:00.000000000Z root\n"
          "creating 0 creating /bundles/creating 2026-01-01T00:00:00.000000000Z root\n"
          "no-record 0 stopped   \n"
          "no-record-locked 0 creating   \n"
          "running " + std::to_string(self) + " running /bundles/running 2026-01-01T00:00:00.000000000Z root\n"
          "stopped 0 stopped /bundles/stopped 2026-01-01T00:00:00.000000000Z root\n"
          "symlinked-record 0 stopped /bundles/elsewhere 2026-01-01T00:00:00.000000000Z root\n"
          "wrong-type 0 stopped   \n");
    ::close(held);
}

TEST_CASE("list never fails while containers are created and deleted beside it", "[list]") {
    TempRoot root;
    add_container(root.path, "steady", record_of("steady"));
    std::atomic<bool> done{false};
    // Containers appear (record first, then the rename, as create does) and vanish (entries unlinked one by one,
    // then the directory, as delete does) all the time.
    std::thread churn([&] {
        for (int i = 0; !done; ++i) {
            auto name = id("churn-" + std::to_string(i % 8));
            auto record = record_of(name.str());
            if (auto dir = state::StateDir::create(root.path, name, &record)) (void)dir->remove();
        }
    });
    for (int round = 0; round < 300; ++round) {
        auto listed = list_containers(Runtime{.root = root.path});
        bool steady_seen = false;
        for (const auto& c : listed) {
            if (c.id.str() == "steady") {
                steady_seen = c.status == "stopped" && c.bundle == "/bundles/steady";
                continue;
            }
            // A churning container is seen whole (creating: its creator, this process, holds the lock), or as the
            // part a delete left (stopped), never as anything else.
            CHECK(c.id.str().starts_with("churn-"));
            CHECK((c.status == "creating" || c.status == "stopped"));
        }
        CHECK(steady_seen);
    }
    done = true;
    churn.join();
}
