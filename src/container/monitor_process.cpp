#include "container/monitor_process.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <vector>

#include "base/proc_stat.hpp"
#include "base/sys.hpp"
#include "base/time.hpp"
#include "cgroup/cgroup.hpp"
#include "cgroup/hierarchy.hpp"
#include "cgroup/stats.hpp"

namespace husk::container {
namespace {

// The monitor keeps only what it watches: stdio goes to /dev/null (the container's pipes must reach EOF when
// the container ends, not when the monitor does) and every other inherited fd is closed.
void detach(std::vector<int> keep) {
    ::setsid();
    for (int sig : {SIGHUP, SIGINT, SIGQUIT, SIGPIPE, SIGTERM, SIGUSR1, SIGUSR2}) ::signal(sig, SIG_IGN);
    int null = ::open("/dev/null", O_RDWR | O_CLOEXEC);
    for (int fd = 0; fd < 3; ++fd) ::dup2(null, fd);
    keep.push_back(null);
    std::sort(keep.begin(), keep.end());
    int from = 3;
    for (int fd : keep) {
        if (fd >= from) {
            if (fd > from) ::close_range(static_cast<unsigned>(from), static_cast<unsigned>(fd - 1), 0);
            from = fd + 1;
        }
    }
    ::close_range(static_cast<unsigned>(from), ~0u, 0);
    ::close(null);
}

// The state dir as the monitor sees it: by path, locked exclusively, holding init's record and no exit yet.
struct LockedRecord {
    state::StateDir dir;
    state::Record record;
};

std::optional<LockedRecord> open_for_update(const std::string& state_path, pid_t init) {
    auto slash = state_path.rfind('/');
    auto dir = state::StateDir::open(state_path.substr(0, slash), state_path.substr(slash + 1));
    if (!dir || !dir->lock(state::Lock::exclusive)) return std::nullopt;
    auto record = dir->read_record();
    if (!record || record->pid != init || record->exit) return std::nullopt;
    return LockedRecord{std::move(*dir), std::move(*record)};
}

// The counters the verdict and husk.usage need, read while the cgroup still exists (delete removes it only
// after the verdict is written).
void read_final_counters(const MonitorPlan& plan, CgroupFacts& facts, state::Usage& usage) {
    if (plan.cgroup_path.empty()) return;
    auto dir = cgroup::open_cgroup_dir(plan.cgroup_mount, plan.cgroup_path);
    if (!dir) return;
    std::string where = plan.cgroup_mount + plan.cgroup_path;
    // A counter that cannot be read is left out of husk.usage; it never changes the verdict.
    if (auto cpu = cgroup::read_keyed_counters(dir->get(), "cpu.stat", where); cpu && *cpu) {
        for (const auto& [key, value] : **cpu)
            if (key == "usage_usec") usage.cpu_usec = value;
    }
    usage.memory_peak_bytes = cgroup::read_single_counter(dir->get(), "memory.peak", where).value_or(std::nullopt);
    usage.pids_peak = cgroup::read_single_counter(dir->get(), "pids.peak", where).value_or(std::nullopt);
    if (!plan.oom_kills_before) return;
    auto now = cgroup::read_oom_count(dir->get(), where);
    if (now && *now && **now > *plan.oom_kills_before) facts.oom_kills = **now - *plan.oom_kills_before;
    if (auto max = cgroup::read_cgroup_file(dir->get(), "memory.max", where)) {
        facts.memory_max = *max;
        while (!facts.memory_max.empty() && facts.memory_max.back() == '\n') facts.memory_max.pop_back();
    }
}

}  // namespace

std::optional<std::uint64_t> read_oom_kills(const std::string& cgroup_mount, const std::string& cgroup_path) {
    if (cgroup_path.empty()) return std::nullopt;
    auto dir = cgroup::open_cgroup_dir(cgroup_mount, cgroup_path);
    if (!dir) return std::nullopt;
    auto count = cgroup::read_oom_count(dir->get(), cgroup_mount + cgroup_path);
    return count ? *count : std::nullopt;
}

void record_exit(const MonitorPlan& plan, pid_t init, const monitor::ExitStatus& status) {
    CgroupFacts facts;
    state::Usage usage;
    read_final_counters(plan, facts, usage);
    auto locked = open_for_update(plan.state_path, init);
    if (!locked) return;
    locked->record.exit = decide_exit(status, locked->record, plan.policy, facts);
    locked->record.exit->usage = usage;
    (void)locked->dir.write_record(locked->record);
}

std::optional<monitor::WallTime> wall_time(const MonitorPlan& plan, pid_t init, int pidfd) {
    if (!plan.policy.timeout) return std::nullopt;
    monitor::WallTime w;
    w.limit = *plan.policy.timeout;
    w.grace = plan.policy.grace;
    w.stop_signal = plan.policy.stop_signal;
    // Durable before the first signal (write_record fsyncs and renames), so the verdict survives the monitor.
    w.record_cause = [plan, init] {
        auto locked = open_for_update(plan.state_path, init);
        if (!locked || locked->record.cause) return;
        locked->record.cause = timeout_cause(plan.policy);
        (void)locked->dir.write_record(locked->record);
    };
    w.kill_all = [plan, pidfd] {
        // cgroup.kill takes every process, also those that left init's tree; without a cgroup, SIGKILL to init
        // (in its own pid namespace that ends every process in it; pid_namespaces(7)).
        if (!plan.cgroup_path.empty() && cgroup::kill_all(plan.cgroup_mount, plan.cgroup_path, SIGKILL)) return;
        sys::pidfd_send_signal(pidfd, SIGKILL);
    };
    return w;
}

[[noreturn]] void run_monitor(const MonitorPlan& plan, process::Spawned init, monitor::Role role, int report) {
    ::close(report);
    detach({init.pidfd.get(), init.sync.get()});
    monitor::WaitOptions options;
    options.role = role;
    options.sync = init.sync.get();
    options.pid = init.pid;
    options.wall_time = wall_time(plan, init.pid, init.pidfd.get());
    if (auto stat = read_proc_stat(init.pid)) options.start_time = stat->start_time;
    auto status = monitor::wait_for_exit(init.pidfd.get(), options);
    record_exit(plan, init.pid, status ? *status : monitor::ExitStatus{});
    ::_exit(0);
}

void kill_init(pid_t pid) {
    int fd = sys::pidfd_open(pid, 0);
    if (fd < 0) return;
    sys::pidfd_send_signal(fd, SIGKILL);
    ::close(fd);
}

}  // namespace husk::container
