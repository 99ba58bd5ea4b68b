#include "monitor_support.hpp"

#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <thread>

namespace husk::test {

void require_ok(const Output& out) {
    INFO(out.describe());
    REQUIRE(out.exit_code == 0);
}

Bundle with_args(Sandbox& sb, std::vector<std::string> args) {
    Bundle b = sb.bundle();
    b.config["process"]["args"] = Json::strings(args);
    return b;
}

Json state_record(const Sandbox& sb, const std::string& id) {
    return Json::parse(read_file(sb.root() + "/" + id + "/state.json"));
}

Json wait_for_exit(Sandbox& sb, const std::string& id, Ms timeout) {
    Json st = sb.wait_for_status(id, "stopped", timeout);
    for (int i = 0; i < 250 && !st["husk"].contains("exit"); ++i) {
        std::this_thread::sleep_for(Ms(20));
        st = sb.state(id);
    }
    INFO("state: " << st.dump());
    REQUIRE(st["status"].str() == "stopped");
    REQUIRE(st["husk"].contains("exit"));
    return st;
}

bool wait_for_output(const Output& from, std::string_view text, Ms timeout) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    while (from.current_out().find(text) == std::string::npos) {
        if (std::chrono::steady_clock::now() > deadline) return false;
        std::this_thread::sleep_for(Ms(20));
    }
    return true;
}

pid_t create_and_start(Sandbox& sb, const Bundle& b, const std::string& id, std::vector<std::string> flags) {
    Output created = sb.create(b, id, std::move(flags));
    require_ok(created);
    require_ok(sb.husk({"start", id}));
    pid_t pid = static_cast<pid_t>(sb.state(id)["pid"].num());
    REQUIRE(pid > 0);
    sb.track_pid(pid);
    return pid;
}

void delete_and_check(Sandbox& sb, const std::string& id) {
    require_ok(sb.husk({"delete", id}));
    check_nothing_left(sb);
}

void add_capability(Json& config, const std::string& cap) {
    for (const char* set : {"bounding", "effective", "permitted"}) config["process"]["capabilities"][set].push_back(cap);
}

void share_host_pid_namespace(Json& config) {
    Json kept = Json::array();
    for (const Json& ns : config["linux"]["namespaces"].items())
        if (ns["type"].str() != "pid") kept.push_back(ns);
    config["linux"]["namespaces"] = kept;
}

void reap_if_ours(pid_t pid) {
    if (proc_parent(pid) == getpid()) waitpid(pid, nullptr, 0);
}

}  // namespace husk::test
