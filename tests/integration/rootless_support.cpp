#include "rootless_support.hpp"

#include <dirent.h>
#include <pwd.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <functional>
#include <initializer_list>
#include <string>
#include <thread>

namespace husk::test {
namespace {

// useradd, usermod and userdel take a lock on /etc/passwd: another test (a parallel shard) may hold it for a
// moment ("cannot lock /etc/passwd; try again later", exit 1 or 10).
Output retry_locked(Sandbox& sb, const std::vector<std::string>& argv) {
    Output out;
    for (int attempt = 0; attempt < 50; ++attempt) {
        out = sb.command(argv);
        if (out.exit_code == 0 || out.err.find("lock") == std::string::npos) break;
        std::this_thread::sleep_for(Ms(100));
    }
    return out;
}

std::string range(std::uint32_t start) { return std::to_string(start) + "-" + std::to_string(start + 65535); }

// The first of `candidates` that exists: the VM's guest has busybox's tools, and util-linux's setpriv staged in
// /usr/local/bin (busybox's has no --reuid).
std::string first_existing(std::initializer_list<const char*> candidates) {
    for (const char* path : candidates)
        if (::access(path, X_OK) == 0) return path;
    return *candidates.begin();
}

}  // namespace

TestUser::TestUser(Sandbox& sb, Subids subids, Account account) : sb_(sb) {
    // "husk-it.XXXXXX" gives the sandbox's suffix: the name stays unique across parallel tests.
    name_ = "husk-rl-" + to_lower(sb.dir().substr(sb.dir().size() - 6));
    home_ = sb.dir() + "/" + name_;
    runtime_dir_ = home_ + "/run";
    if (account == Account::uid_only) {
        // Well above Debian's system and user accounts, one per sandbox.
        uid_ = gid_ = 70000 + static_cast<uid_t>(std::hash<std::string>{}(name_) % 20000);
        for (const std::string& dir : {home_, runtime_dir_}) {
            REQUIRE(::mkdir(dir.c_str(), 0700) == 0);
            REQUIRE(::chown(dir.c_str(), uid_, gid_) == 0);
        }
        return;
    }
    account_ = true;
    Output added = retry_locked(sb, {"/usr/sbin/useradd", "--system", "--user-group", "--no-create-home",
                                     "--shell", "/usr/sbin/nologin", name_});
    INFO(added.describe());
    REQUIRE(added.exit_code == 0);
    const passwd* entry = ::getpwnam(name_.c_str());
    REQUIRE(entry != nullptr);
    uid_ = entry->pw_uid;
    gid_ = entry->pw_gid;
    if (subids == Subids::range) {
        // Far from what useradd hands out (100000-600100000) and from the sandbox's 2^30, one block per uid.
        subid_start_ = 3000000000u + static_cast<std::uint32_t>(uid_ % 10000) * 65536u;
        Output ranges = retry_locked(sb, {"/usr/sbin/usermod", "--add-subuids", range(subid_start_), "--add-subgids",
                                          range(subid_start_), name_});
        INFO(ranges.describe());
        REQUIRE(ranges.exit_code == 0);
    }
    for (const std::string& dir : {home_, runtime_dir_}) {
        REQUIRE(::mkdir(dir.c_str(), 0700) == 0);
        REQUIRE(::chown(dir.c_str(), uid_, gid_) == 0);
    }
}

TestUser::~TestUser() {
    for (int round = 0; round < 20; ++round) {
        std::vector<pid_t> left = processes();
        if (left.empty()) break;
        for (pid_t pid : left) ::kill(pid, SIGKILL);
        std::this_thread::sleep_for(Ms(50));
    }
    if (!account_) return;
    if (subid_start_ != 0)
        retry_locked(sb_, {"/usr/sbin/usermod", "--del-subuids", range(subid_start_), "--del-subgids",
                           range(subid_start_), name_});
    retry_locked(sb_, {"/usr/sbin/userdel", name_});
}

std::vector<std::string> TestUser::as_user(const std::vector<std::string>& argv, const SpawnOptions& options) const {
    std::vector<std::string> out;
    if (!cgroup_procs_.empty()) out = {"/bin/sh", "-c", "echo $$ > \"$0\" && exec \"$@\"", cgroup_procs_};
    const std::vector<std::string> as = {
        first_existing({"/usr/local/bin/setpriv", "/usr/bin/setpriv"}), "--reuid", std::to_string(uid_), "--regid",
        std::to_string(gid_), "--clear-groups", "--", first_existing({"/usr/bin/env", "/bin/env"}), "-i",
        "HOME=" + home_, "XDG_RUNTIME_DIR=" + runtime_dir_, "PATH=/usr/local/bin:/usr/bin:/bin", sb_.marker()};
    out.insert(out.end(), as.begin(), as.end());
    out.insert(out.end(), options.env.begin(), options.env.end());
    out.insert(out.end(), argv.begin(), argv.end());
    return out;
}

Output TestUser::run(const std::vector<std::string>& argv, SpawnOptions options) const {
    std::vector<std::string> command = as_user(argv, options);
    options.env.clear();
    if (options.cwd.empty()) options.cwd = home_;
    return sb_.command(command, options);
}

Process TestUser::spawn(const std::vector<std::string>& argv, SpawnOptions options) const {
    std::vector<std::string> command = as_user(argv, options);
    options.env.clear();
    if (options.cwd.empty()) options.cwd = home_;
    return sb_.spawn_command(command, options);
}

Output TestUser::husk(const std::vector<std::string>& args, SpawnOptions options) const {
    std::vector<std::string> argv = {paths().husk};
    argv.insert(argv.end(), args.begin(), args.end());
    return run(argv, std::move(options));
}

Process TestUser::spawn_husk(const std::vector<std::string>& args, SpawnOptions options) const {
    std::vector<std::string> argv = {paths().husk};
    argv.insert(argv.end(), args.begin(), args.end());
    return spawn(argv, std::move(options));
}

std::vector<pid_t> TestUser::processes() const {
    std::vector<pid_t> out;
    DIR* proc = ::opendir("/proc");
    if (proc == nullptr) return out;
    while (dirent* e = ::readdir(proc)) {
        char* end = nullptr;
        long pid = std::strtol(e->d_name, &end, 10);
        if (pid <= 0 || *end != '\0') continue;
        // The real uid from status (the owner of /proc/PID is root while a process is not dumpable, as husk's
        // are during set-up): the user's own, or one of its subordinate ids (a sandbox's program).
        const std::string status = read_file("/proc/" + std::string(e->d_name) + "/status");
        const std::size_t at = status.find("\nUid:\t");
        if (at == std::string::npos) continue;
        const unsigned long real = std::strtoul(status.c_str() + at + 6, nullptr, 10);
        const bool subordinate = subid_start_ != 0 && real >= subid_start_ && real - subid_start_ < 65536;
        if ((real == uid_ || subordinate) && process_alive(static_cast<pid_t>(pid))) out.push_back(static_cast<pid_t>(pid));
    }
    ::closedir(proc);
    return out;
}

}  // namespace husk::test
