// The "nothing left behind" check and the end-of-test cleanup of a Sandbox.
#include <catch2/catch.hpp>

#include <dirent.h>
#include <ftw.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <sstream>
#include <thread>

#include "harness.hpp"

namespace husk::test {
namespace {

using Clock = std::chrono::steady_clock;

std::string read_link(const std::string& path) {
    char buf[4096];
    ssize_t n = readlink(path.c_str(), buf, sizeof buf - 1);
    return n < 0 ? std::string() : std::string(buf, static_cast<size_t>(n));
}

bool is_under(const std::string& path, const std::string& dir) {
    return path == dir || path.rfind(dir + "/", 0) == 0;
}

std::vector<pid_t> all_pids() {
    std::vector<pid_t> pids;
    if (DIR* proc = opendir("/proc")) {
        while (dirent* e = readdir(proc))
            if (e->d_name[0] >= '1' && e->d_name[0] <= '9') pids.push_back(static_cast<pid_t>(std::atoi(e->d_name)));
        closedir(proc);
    }
    return pids;
}

// Directories under `dir` (depth-first, deepest first) whose name contains `needle`.
void find_dirs(const std::string& dir, const std::string& needle, int depth, std::vector<std::string>& out) {
    if (depth > 6) return;
    DIR* d = opendir(dir.c_str());
    if (!d) return;
    std::vector<std::string> children;
    while (dirent* e = readdir(d))
        if (e->d_type == DT_DIR && std::string_view(e->d_name) != "." && std::string_view(e->d_name) != "..")
            children.push_back(e->d_name);
    closedir(d);
    for (const std::string& child : children) {
        find_dirs(dir + "/" + child, needle, depth + 1, out);
        if (child.find(needle) != std::string::npos) out.push_back(dir + "/" + child);
    }
}

// Mount points that name the sandbox directory, deepest first.
std::vector<std::string> mounts_under(const std::string& dir) {
    std::vector<std::string> out;
    for (const std::string& line : lines(read_file("/proc/self/mountinfo")))
        if (line.find(dir) != std::string::npos) {
            std::istringstream in(line);
            std::string field;
            for (int i = 0; i < 5 && in >> field; ++i) {}
            out.push_back(field + "  (" + line + ")");
        }
    std::sort(out.rbegin(), out.rend());
    return out;
}

std::string describe_process(pid_t pid) {
    std::string cmdline = read_file("/proc/" + std::to_string(pid) + "/cmdline");
    std::replace(cmdline.begin(), cmdline.end(), '\0', ' ');
    return "process " + std::to_string(pid) + ": " + cmdline;
}

void wait_until(const std::function<bool()>& done, Ms timeout) {
    auto deadline = Clock::now() + timeout;
    while (!done() && Clock::now() < deadline) std::this_thread::sleep_for(Ms(20));
}

int remove_entry(const char* path, const struct stat*, int type, FTW*) {
    if (type == FTW_DP) rmdir(path);
    else unlink(path);
    return 0;
}

}  // namespace

std::string cgroup2_mount() {
    for (const std::string& line : lines(read_file("/proc/self/mountinfo"))) {
        size_t dash = line.find(" - cgroup2 ");
        if (dash == std::string::npos) continue;
        std::istringstream in(line);
        std::string field;
        for (int i = 0; i < 5 && in >> field; ++i) {}
        return field;
    }
    return "";
}

// A process is this sandbox's when it carries the marker in its environment (husk and the container
// processes inherit it), has its cwd or root inside the sandbox directory, or was tracked by pid.
std::vector<pid_t> Sandbox::own_processes() const {
    std::vector<pid_t> out;
    std::string needle = std::string(1, '\0') + marker_ + '\0';
    for (pid_t pid : all_pids()) {
        if (pid == getpid() || !process_alive(pid)) continue;
        std::string proc = "/proc/" + std::to_string(pid);
        // NUL-separated entries; framed with NULs so the marker matches only as a whole entry.
        std::string environ = '\0' + read_file(proc + "/environ") + '\0';
        bool ours = environ.find(needle) != std::string::npos;
        ours = ours || is_under(read_link(proc + "/cwd"), dir_) || is_under(read_link(proc + "/root"), dir_);
        for (const auto& [tracked, start] : tracked_) ours = ours || (tracked == pid && proc_start_time(pid) == start);
        if (ours) out.push_back(pid);
    }
    return out;
}

std::vector<std::string> Sandbox::leftovers() const {
    std::vector<std::string> found;
    std::vector<pid_t> processes;
    wait_until([&] { return (processes = own_processes()).empty(); }, Ms(1000));
    for (pid_t pid : processes) found.push_back(describe_process(pid));

    if (DIR* d = opendir(root_.c_str())) {
        while (dirent* e = readdir(d))
            // tenants/ holds the tenant ledgers (docs/tenants.md) and .seccomp-cache/ compiled seccomp programs
            // (husk(8) FILES), not containers; they go with the sandbox.
            if (e->d_type == DT_DIR && std::string_view(e->d_name) != "." && std::string_view(e->d_name) != ".." &&
                std::string_view(e->d_name) != "tenants" && std::string_view(e->d_name) != ".seccomp-cache")
                found.push_back("state directory " + root_ + "/" + e->d_name);
        closedir(d);
    }
    std::vector<std::string> cgroups;
    if (std::string v2 = cgroup2_mount(); !v2.empty()) find_dirs(v2, suffix_, 0, cgroups);
    for (const std::string& cgroup : cgroups) found.push_back("cgroup " + cgroup);
    for (const std::string& mount : mounts_under(dir_)) found.push_back("mount " + mount);
    return found;
}

void Sandbox::clean_up() noexcept {
    std::vector<std::string> found;
    // Each step runs even when an earlier one threw, so the directory is removed whenever possible.
    auto step = [&](const char* what, const std::function<void()>& body) {
        try {
            body();
        } catch (const std::exception& e) {
            found.push_back(std::string("cleanup step \"") + what + "\" failed: " + e.what());
        }
    };
    step("delete --force", [&] {
        for (const std::string& id : ids_) {
            SpawnOptions quick;
            quick.timeout = Ms(10000);
            husk({"delete", "--force", id}, quick);
        }
    });
    step("look for leftovers", [&] {
        std::vector<std::string> left = leftovers();
        found.insert(found.end(), left.begin(), left.end());
    });
    // Remove our own leftovers only: processes that carry our marker or live in our directory,
    // cgroups named with our suffix, mounts inside our directory.
    step("kill processes", [&] {
        for (pid_t pid : own_processes()) kill(pid, SIGKILL);
        wait_until([&] { return own_processes().empty(); }, Ms(3000));
    });
    step("remove cgroups", [&] {
        std::vector<std::string> cgroups;
        if (std::string v2 = cgroup2_mount(); !v2.empty()) find_dirs(v2, suffix_, 0, cgroups);
        for (const std::string& cgroup : cgroups) rmdir(cgroup.c_str());
    });
    step("remove the directory", [&] {
        for (const std::string& mount : mounts_under(dir_)) {
            std::string target = mount.substr(0, mount.find("  ("));
            if (is_under(target, dir_)) umount2(target.c_str(), MNT_DETACH);
        }
        // Never recurse into a mount that is still there; FTW_MOUNT also stays on one filesystem.
        if (mounts_under(dir_).empty()) nftw(dir_.c_str(), remove_entry, 32, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
        else found.push_back("sandbox directory kept because of the mounts above: " + dir_);
    });
    for (const std::string& item : found) FAIL_CHECK("left behind: " << item);
}

}  // namespace husk::test
