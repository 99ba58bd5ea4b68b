#include "monitor_support.hpp"

#include <catch2/catch.hpp>

#include <dirent.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <memory>

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

long long factor_count(const Json& verdict, std::string_view kind) {
    if (!verdict.contains("factors")) return 0;
    for (const Json& factor : verdict["factors"].items())
        if (factor["kind"].str() == kind) return factor["count"].num();
    return 0;
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
    Json st = sb.state(id);
    INFO("state after start: " << st.dump());
    pid_t pid = static_cast<pid_t>(st["pid"].num());
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

void wait_until_init_exited(const std::string& pid_file) {
    auto deadline = std::chrono::steady_clock::now() + Ms(20000);
    pid_t pid = 0;
    while (pid <= 0 && std::chrono::steady_clock::now() < deadline) {
        pid = static_cast<pid_t>(std::atoi(read_file(pid_file).c_str()));
        if (pid <= 0) std::this_thread::sleep_for(Ms(10));
    }
    REQUIRE(pid > 0);
    while (process_alive(pid) && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(Ms(10));
    REQUIRE_FALSE(process_alive(pid));
    reap_if_ours(pid);
}

bool monitor_timer_armed(pid_t monitor) {
    std::string fds = "/proc/" + std::to_string(monitor) + "/fd";
    std::unique_ptr<DIR, int (*)(DIR*)> dir(::opendir(fds.c_str()), ::closedir);
    if (!dir) return false;
    while (dirent* entry = ::readdir(dir.get())) {
        char target[64] = {};
        std::string link = fds + "/" + entry->d_name;
        if (::readlink(link.c_str(), target, sizeof target - 1) <= 0 || std::string(target) != "anon_inode:[timerfd]")
            continue;
        std::string info = read_file("/proc/" + std::to_string(monitor) + "/fdinfo/" + entry->d_name);
        auto at = info.find("it_value: (");
        long long seconds = 0, nanoseconds = 0;
        if (at != std::string::npos &&
            std::sscanf(info.c_str() + at, "it_value: (%lld, %lld)", &seconds, &nanoseconds) == 2 &&
            (seconds != 0 || nanoseconds != 0))
            return true;
    }
    return false;
}

StoppedMonitor::StoppedMonitor(pid_t pid) : pid_(pid) {
    REQUIRE(pid > 0);
    REQUIRE(::kill(pid, SIGSTOP) == 0);  // the test's own monitor, by pid
    stopped_ = true;
    // kill returns before the signal is acted on: wait for the stop itself (state T in /proc/PID/stat).
    auto deadline = std::chrono::steady_clock::now() + Ms(10000);
    auto state = [&] {
        std::string stat = read_file("/proc/" + std::to_string(pid) + "/stat");
        auto paren = stat.rfind(')');
        return paren == std::string::npos || paren + 2 >= stat.size() ? '?' : stat[paren + 2];
    };
    while (state() != 'T' && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(Ms(5));
    bool stopped = state() == 'T';
    if (!stopped) resume();  // a failed REQUIRE in a constructor skips the destructor
    REQUIRE(stopped);
}

void StoppedMonitor::resume() {
    if (stopped_) ::kill(pid_, SIGCONT);
    stopped_ = false;
}

}  // namespace husk::test
