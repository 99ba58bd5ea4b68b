#include "container/monitor_process.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <memory>
#include <vector>

#include "base/proc_stat.hpp"
#include "base/sys.hpp"
#include "base/time.hpp"
#include "cgroup/cgroup.hpp"
#include "cgroup/cpu_hold.hpp"
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
// A key of a flat keyed cgroup file ("max" of pids.events), nothing when the file or key is not there.
std::optional<std::uint64_t> keyed_counter(int dir_fd, const char* file, std::string_view key, const std::string& where) {
    auto counters = cgroup::read_keyed_counters(dir_fd, file, where);
    if (!counters || !*counters) return std::nullopt;
    for (const auto& [name, value] : **counters)
        if (name == key) return value;
    return std::nullopt;
}

void read_final_counters(const MonitorPlan& plan, CgroupFacts& facts, state::Usage& usage,
                         std::vector<state::Factor>& factors) {
    if (!plan.cgroup) return;
    auto dir = cgroup::open_cgroup_dir(*plan.cgroup);
    if (!dir) return;
    std::string where = plan.cgroup->where();
    // A counter that cannot be read is left out of husk.usage; it never changes the verdict.
    usage.cpu_usec = keyed_counter(dir->get(), "cpu.stat", "usage_usec", where);
    // pids.events max: forks refused because pids.max was reached (cgroup-v2.rst), counted from the start.
    if (auto hits = keyed_counter(dir->get(), "pids.events", "max", where); hits && plan.pids_max_before &&
                                                                           *hits > *plan.pids_max_before)
        factors.push_back(state::Factor{"pids-limit", *hits - *plan.pids_max_before});
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

// `exited` and `signaled` say that husk sent no stop signal, which the record proves only while every kill
// request got into it: `kill` unlinks kills-recorded when it could not write one (state filesystem full).
// Then the status is still reported, but not who ended the container.
void qualify_unrecorded_kills(const state::StateDir& dir, state::ExitRecord& exit) {
    if (exit.reason != "exited" && exit.reason != "signaled") return;
    if (::faccessat(dir.fd(), state::StateDir::kills_recorded, F_OK, AT_SYMLINK_NOFOLLOW) == 0) return;
    exit.detail = (exit.signal != 0 ? "terminated by signal " + std::to_string(exit.signal)
                                    : "exit code " + std::to_string(exit.code)) +
                  "; a husk kill request could not be recorded (state filesystem full?), so whether husk asked "
                  "for this end is unknown";
    exit.reason = "unknown";
}

}  // namespace

std::optional<std::uint64_t> read_oom_kills(const std::optional<cgroup::CgroupLocation>& cgroup) {
    if (!cgroup) return std::nullopt;
    auto dir = cgroup::open_cgroup_dir(*cgroup);
    if (!dir) return std::nullopt;
    auto count = cgroup::read_oom_count(dir->get(), cgroup->where());
    return count ? *count : std::nullopt;
}

std::optional<std::uint64_t> read_pids_max_hits(const std::optional<cgroup::CgroupLocation>& cgroup) {
    if (!cgroup) return std::nullopt;
    auto dir = cgroup::open_cgroup_dir(*cgroup);
    if (!dir) return std::nullopt;
    return keyed_counter(dir->get(), "pids.events", "max", cgroup->where());
}

std::optional<state::ExitRecord> record_exit(const MonitorPlan& plan, pid_t init, const monitor::ExitStatus& status) {
    CgroupFacts facts;
    state::Usage usage;
    std::vector<state::Factor> factors;
    read_final_counters(plan, facts, usage, factors);
    usage.stdout_bytes = status.stdout_bytes;
    usage.stderr_bytes = status.stderr_bytes;
    auto locked = open_for_update(plan.state_path, init);
    if (!locked) return std::nullopt;
    locked->record.exit = decide_exit(status, locked->record, plan.policy, facts);
    qualify_unrecorded_kills(locked->dir, *locked->record.exit);
    locked->record.exit->usage = usage;
    locked->record.exit->factors = std::move(factors);
    (void)locked->dir.write_record(locked->record);
    return locked->record.exit;
}

namespace {

// Durable before the first signal (write_record fsyncs and renames), so the verdict survives the monitor. A
// cause recorded first (a timeout, then output past the cap while dying) stays.
void record_cause(const MonitorPlan& plan, pid_t init, const state::StopCause& cause) {
    auto locked = open_for_update(plan.state_path, init);
    if (!locked || locked->record.cause) return;
    locked->record.cause = cause;
    (void)locked->dir.write_record(locked->record);
}

// cgroup.kill takes every process, also those that left init's tree; without a cgroup, SIGKILL to init (in its
// own pid namespace that ends every process in it; pid_namespaces(7)).
void kill_container(const MonitorPlan& plan, int pidfd) {
    if (plan.cgroup && cgroup::kill_all(*plan.cgroup, SIGKILL)) return;
    sys::pidfd_send_signal(pidfd, SIGKILL);
}

std::optional<std::uint64_t> read_cpu_usage(const MonitorPlan& plan) {
    if (!plan.cgroup) return std::nullopt;
    auto dir = cgroup::open_cgroup_dir(*plan.cgroup);
    if (!dir) return std::nullopt;
    auto cpu = cgroup::read_keyed_counters(dir->get(), "cpu.stat", plan.cgroup->where());
    if (!cpu || !*cpu) return std::nullopt;
    for (const auto& [key, value] : **cpu)
        if (key == "usage_usec") return value;
    return std::nullopt;
}

}  // namespace

Result<std::optional<OutputPlumbing>> open_output_plumbing(const StopPolicy& policy) {
    if (!policy.output_limit) return std::optional<OutputPlumbing>{};
    OutputPlumbing plumbing{TRY(monitor::open_pump_pipes()), {}, {}};
    // Our own descriptions of the stdio we were given: the monitor's fds 0-2 go to /dev/null when it detaches.
    plumbing.stdout_out.reset(::fcntl(1, F_DUPFD_CLOEXEC, 3));
    if (!plumbing.stdout_out) return fail_sys(errno, "run.husk.output-limit: duplicate stdout");
    plumbing.stderr_out.reset(::fcntl(2, F_DUPFD_CLOEXEC, 3));
    if (!plumbing.stderr_out) return fail_sys(errno, "run.husk.output-limit: duplicate stderr");
    return std::optional<OutputPlumbing>(std::move(plumbing));
}

void add_limits(const MonitorPlan& plan, pid_t init, int pidfd, std::optional<OutputPlumbing> output,
                monitor::WaitOptions& options) {
    const StopPolicy& policy = plan.policy;
    if (policy.timeout) {
        monitor::WallTime w;
        w.limit = *policy.timeout;
        w.grace = policy.grace;
        w.stop_signal = policy.stop_signal;
        w.record_cause = [plan, init] { record_cause(plan, init, timeout_cause(plan.policy)); };
        w.kill_all = [plan, pidfd] { kill_container(plan, pidfd); };
        options.wall_time = std::move(w);
    }
    if (policy.cpu_limit) {
        monitor::CpuBudget budget;
        budget.limit = *policy.cpu_limit;
        // Online CPUs bound the container's parallelism from above: the timer may fire early, never late.
        budget.cpus = static_cast<unsigned>(std::max(::sysconf(_SC_NPROCESSORS_ONLN), 1L));
        budget.read_usage = [plan] { return read_cpu_usage(plan); };
        budget.baseline = read_cpu_usage(plan);  // init is still waiting for start here
        budget.on_exhausted = [plan, init, pidfd](std::chrono::microseconds used) {
            record_cause(plan, init, cpu_limit_cause(plan.policy, used));
            kill_container(plan, pidfd);
        };
        // With the cpu controller the kernel also holds the container to what is left (cgroup/cpu_hold.hpp).
        if (auto hold = plan.cgroup ? cgroup::CpuHold::open(*plan.cgroup) : std::nullopt) {
            auto shared = std::make_shared<cgroup::CpuHold>(std::move(*hold));
            budget.hold = [shared](std::chrono::microseconds left) { return shared->hold(left).has_value(); };
            budget.release = [shared] { shared->release(); };
        }
        options.cpu_budget = std::move(budget);
    }
    if (output) {
        output->pipes.stdout_write.reset();  // init has its own copies: EOF comes when the container is done
        output->pipes.stderr_write.reset();
        options.pump.emplace(std::move(output->pipes), std::move(output->stdout_out), std::move(output->stderr_out),
                             policy.output_limit.value_or(0), [plan, init, pidfd] {
                                 record_cause(plan, init, output_limit_cause(plan.policy));
                                 kill_container(plan, pidfd);
                             });
    }
}

[[noreturn]] void run_monitor(const MonitorPlan& plan, process::Spawned init, monitor::Role role, int report,
                              std::optional<OutputPlumbing> output) {
    ::close(report);
    std::vector<int> keep = {init.pidfd.get(), init.sync.get()};
    if (output) {
        output->pipes.stdout_write.reset();
        output->pipes.stderr_write.reset();
        for (const UniqueFd* fd : {&output->pipes.stdout_read, &output->pipes.stderr_read, &output->pipes.watch,
                                   &output->stdout_out, &output->stderr_out})
            keep.push_back(fd->get());
    }
    detach(std::move(keep));
    monitor::WaitOptions options;
    options.role = role;
    options.sync = init.sync.get();
    options.pid = init.pid;
    add_limits(plan, init.pid, init.pidfd.get(), std::move(output), options);
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
