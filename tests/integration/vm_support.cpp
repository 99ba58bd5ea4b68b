// Helpers for the VM tests (vm_support.hpp).
#include "vm_support.hpp"

#include "monitor_support.hpp"

#include <cerrno>

#include <catch2/catch.hpp>

#include <sstream>
#include <thread>

namespace husk::test::vm {

void require_vm() {
    std::string mount = cgroup2_mount();
    std::string controllers = " " + read_value(mount + "/cgroup.controllers") + " ";
    INFO("a VM test: run it inside the VM, e.g. tests/vm/run-in-vm.sh --build BUILD -- husk-integration '[vm]'"
         " (cgroup2 mount \"" << mount << "\", controllers:" << controllers << ")");
    REQUIRE(mount == "/sys/fs/cgroup");
    for (const char* controller : {"memory", "pids", "cpu", "cpuset", "io", "hugetlb"})
        REQUIRE(controllers.find(std::string(" ") + controller + " ") != std::string::npos);
}

std::string cgroup_dir(Sandbox& sb, const std::string& id) {
    Json st = sb.state(id);
    const Json* path = st["husk"].find("cgroupPath");
    INFO("husk state " << id << ": " << st.dump());
    REQUIRE(path != nullptr);
    return cgroup2_mount() + path->str();
}

void check_fork_loop_stopped(const Output& forks, const std::string& verdict_path) {
    INFO(forks.describe());
    REQUIRE(forks.exit_code == 0);
    Json r = Json::parse(lines(forks.out).back());
    CHECK(r["forked"].num() == 10);
    CHECK(r["errno"].num() == EAGAIN);
    if (verdict_path.empty()) return;
    Json v = Json::parse(read_file(verdict_path));
    INFO(v.dump());
    CHECK(v["exit"]["reason"].str() == "exited");
    CHECK(factor_count(v, "pids-limit") >= 1);
}

void check_ended_oom(const Output& hog, const std::string& verdict_path) {
    INFO(hog.describe());
    Json v = Json::parse(read_file(verdict_path));
    INFO(v.dump());
    CHECK(v["exit"]["reason"].str() == "oom");
    CHECK(factor_count(v, "memory-limit") >= 1);
    CHECK(hog.exit_code == 128 + 9);
}

std::string read_value(const std::string& path) {
    std::string text = read_file(path);
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
    return text;
}

long long keyed_value(const std::string& path, std::string_view key) {
    for (const std::string& line : lines(read_file(path))) {
        std::istringstream in(line);
        std::string name;
        long long value = 0;
        if (in >> name >> value && name == key) return value;
    }
    return -1;
}

bool wait_until(const std::function<bool()>& done, Ms timeout) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    while (!done()) {
        if (std::chrono::steady_clock::now() > deadline) return done();
        std::this_thread::sleep_for(Ms(20));
    }
    return true;
}

std::vector<Json> json_lines(const std::string& text) {
    std::vector<Json> out;
    for (const std::string& line : lines(text))
        if (line.front() == '{') out.push_back(Json::parse(line));
    return out;
}

void touch_in_rootfs(const Bundle& bundle, const std::string& name) { write_file(bundle.rootfs() + name, ""); }

void kill_and_delete(Sandbox& sb, const std::string& id) {
    require_ok(sb.husk({"kill", id, "KILL"}));
    CHECK(sb.wait_for_status(id, "stopped")["status"].str() == "stopped");
    require_ok(sb.husk({"delete", id}));
}

}  // namespace husk::test::vm
