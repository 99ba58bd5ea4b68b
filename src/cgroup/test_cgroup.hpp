// Test helpers (unit tests only): a scratch cgroup subtree under the v2 mount, removed with everything in
// it, and children started straight into a cgroup with clone3(CLONE_INTO_CGROUP).
#pragma once

#include <fcntl.h>
#include <linux/sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <csignal>
#include <functional>
#include <string>
#include <vector>

#include "base/sys.hpp"
#include "cgroup/cgroup.hpp"
#include "husk/unique_fd.hpp"

namespace husk::cgroup::testing {

// /husk-test-<pid> below the v2 root (never below a v1 hierarchy). The destructor kills what the test left
// running in it (only the test's own children can be there) and removes the whole subtree.
class ScratchCgroups {
public:
    ScratchCgroups() : root_("/husk-test-" + std::to_string(::getpid())) {
        auto mount = find_v2_mount();
        REQUIRE(mount);
        mount_ = *mount;
    }
    ~ScratchCgroups() {
        (void)kill_all({mount_, root_}, SIGKILL);
        (void)remove_cgroup({mount_, root_});
    }
    ScratchCgroups(const ScratchCgroups&) = delete;
    ScratchCgroups& operator=(const ScratchCgroups&) = delete;

    const std::string& mount() const { return mount_; }
    const std::string& root() const { return root_; }
    std::string path(const std::string& leaf) const { return root_ + "/" + leaf; }
    std::string host_path(const std::string& leaf) const { return mount_ + path(leaf); }

    CgroupPlan plan(const std::string& leaf) const {
        CgroupPlan plan;
        plan.manager = Manager::cgroupfs;
        plan.location.mount = mount_;
        plan.location.path = path(leaf);
        return plan;
    }

private:
    std::string root_;
    std::string mount_;
};

// A forked child, killed and reaped by the destructor unless the test waited for it.
class Child {
public:
    explicit Child(pid_t pid) : pid_(pid) {}
    Child(Child&& other) noexcept : pid_(other.pid_) { other.pid_ = -1; }
    Child(const Child&) = delete;
    Child& operator=(const Child&) = delete;
    ~Child() {
        if (pid_ <= 0) return;
        ::kill(pid_, SIGKILL);
        ::waitpid(pid_, nullptr, 0);
    }
    pid_t pid() const { return pid_; }
    // The wait status.
    int wait() {
        int status = 0;
        while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
        }
        pid_ = -1;
        return status;
    }

private:
    pid_t pid_;
};

// Runs body in a child created inside the cgroup open at cgroup_fd; the child exits with body's result.
inline Child spawn_in_cgroup(int cgroup_fd, const std::function<int()>& body) {
    clone_args args{};
    args.flags = CLONE_INTO_CGROUP;
    args.exit_signal = SIGCHLD;
    args.cgroup = static_cast<std::uint64_t>(cgroup_fd);
    long pid = sys::clone3(&args);
    if (pid == 0) {
        // Catch2's fatal-signal handlers are inherited: restore the defaults so signals act as on any process.
        for (int sig = 1; sig < NSIG; ++sig) ::signal(sig, SIG_DFL);
        sigset_t none;
        sigemptyset(&none);
        ::sigprocmask(SIG_SETMASK, &none, nullptr);
        ::_exit(body());
    }
    REQUIRE(pid > 0);
    return Child(static_cast<pid_t>(pid));
}

// Runs `probe(i)` for i in [0, count) in one child inside the cgroup and returns what each returned (an errno,
// 0 for success); REQUIREs that the child ran them all.
inline std::vector<int> probe_in_cgroup(int cgroup_fd, std::size_t count, const std::function<int(std::size_t)>& probe) {
    int pipe_fds[2];
    REQUIRE(::pipe2(pipe_fds, O_CLOEXEC) == 0);
    UniqueFd read_end(pipe_fds[0]), write_end(pipe_fds[1]);
    std::vector<int> results(count, -1);
    const auto size = static_cast<ssize_t>(count * sizeof(int));
    auto child = spawn_in_cgroup(cgroup_fd, [&]() {
        for (std::size_t i = 0; i < count; ++i) results[i] = probe(i);
        return ::write(write_end.get(), results.data(), static_cast<std::size_t>(size)) == size ? 0 : 1;
    });
    write_end.reset();
    int status = child.wait();
    REQUIRE(WIFEXITED(status));
    REQUIRE(WEXITSTATUS(status) == 0);
    REQUIRE(::read(read_end.get(), results.data(), static_cast<std::size_t>(size)) == size);
    return results;
}

}  // namespace husk::cgroup::testing
