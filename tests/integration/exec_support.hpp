// What the exec tests share: a running container to exec into, and the namespaces of a host pid.
#pragma once

#include <unistd.h>

#include <chrono>
#include <map>
#include <string>
#include <thread>

#include "harness.hpp"
#include "monitor_support.hpp"

namespace husk::test {

// A started container whose init sleeps; its init pid in *init when given.
inline std::string start_sleeper(Sandbox& sb, Bundle& b, std::string_view name, pid_t* init = nullptr) {
    b.config["process"]["args"] = Json::strings({"/probe", "sleep", "120"});
    std::string id = sb.id(name);
    pid_t pid = create_and_start(sb, b, id);
    if (init != nullptr) *init = pid;
    return id;
}

// SIGKILL to init, wait for its recorded exit, delete, and check nothing is left.
inline void stop_and_delete(Sandbox& sb, const std::string& id) {
    require_ok(sb.husk({"kill", id, "KILL"}));
    wait_for_exit(sb, id);
    delete_and_check(sb, id);
}

// /proc/PID/ns/* as the links read ("pid:[4026531836]"), by the probe's names.
inline std::map<std::string, std::string> namespaces_of(pid_t pid) {
    std::map<std::string, std::string> out;
    for (const char* ns : {"cgroup", "ipc", "mnt", "net", "pid", "time", "user", "uts"}) {
        char target[256] = {};
        std::string path = "/proc/" + std::to_string(pid) + "/ns/" + ns;
        ssize_t n = readlink(path.c_str(), target, sizeof target - 1);
        out[ns] = n > 0 ? std::string(target, static_cast<std::size_t>(n)) : "?";
    }
    return out;
}

// Polls until pid is gone (or a zombie), up to timeout.
inline bool wait_gone(pid_t pid, Ms timeout = Ms(10000)) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    while (process_alive(pid)) {
        if (std::chrono::steady_clock::now() > deadline) return false;
        std::this_thread::sleep_for(Ms(20));
    }
    return true;
}

}  // namespace husk::test
