#include "monitor/monitor_process.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <syslog.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <memory>
#include <csignal>
#include <vector>

#include "base/fs.hpp"
#include "base/proc_stat.hpp"
#include "base/sys.hpp"
#include "monitor/limits.hpp"
#include "monitor/record.hpp"

namespace husk::monitor {
namespace {

// The monitor keeps only what it watches: stdio goes to /dev/null (the container's pipes must reach EOF when
// the container ends, not when the monitor does) and every other inherited fd is closed.
void detach(std::vector<int> keep) {
    ::setsid();
    for (int sig : {SIGHUP, SIGINT, SIGQUIT, SIGPIPE, SIGTERM, SIGUSR1, SIGUSR2}) ::signal(sig, SIG_IGN);
    auto null = open_fd("/dev/null", O_RDWR);
    for (int fd = 0; fd < 3 && null; ++fd) ::dup2(null->get(), fd);
    if (null) keep.push_back(null->get());
    std::sort(keep.begin(), keep.end());
    int from = 3;
    for (int fd : keep) {
        if (fd >= from) {
            if (fd > from) ::close_range(static_cast<unsigned>(from), static_cast<unsigned>(fd - 1), 0);
            from = fd + 1;
        }
    }
    ::close_range(static_cast<unsigned>(from), ~0u, 0);
}

}  // namespace

[[noreturn]] void run_monitor(const MonitorPlan& plan, process::Spawned init, Role role, int report,
                              std::optional<OutputPlumbing> output, std::optional<Caller> caller) {
    ::close(report);
    std::vector<int> keep = {init.pidfd.get(), init.sync.get()};
    if (init.init_report) keep.push_back(init.init_report.get());
    if (output) {
        output->pipes.stdout_write.reset();
        output->pipes.stderr_write.reset();
        for (const UniqueFd* fd : {&output->pipes.stdout_read, &output->pipes.stderr_read, &output->pipes.watch,
                                   &output->stdout_out, &output->stderr_out})
            keep.push_back(fd->get());
    }
    if (caller) keep.push_back(caller->pidfd.get());
    if (plan.held_cgroup && *plan.held_cgroup) keep.push_back(plan.held_cgroup->get());
    if (plan.net) {
        keep.push_back(plan.net->counter.get());
        if (plan.net->events) keep.push_back(plan.net->events.get());
    }
    detach(std::move(keep));
    WaitOptions options;
    options.role = role;
    options.sync = init.sync.get();
    options.init_report = init.init_report.get();
    options.pid = init.pid;
    add_limits(plan, init.pid, init.pidfd.get(), std::move(output), options);
    if (caller) {
        auto enforcer = std::make_shared<const Enforcer>(plan, init.pid, init.pidfd.get());
        options.watchers.push_back(watch_caller(std::move(*caller), [enforcer] { enforcer->kill(); }));
    }
    if (auto stat = read_proc_stat(init.pid)) options.start_time = stat->start_time;
    auto status = wait_for_exit(init.pidfd.get(), options);
    // Without a state dir there is no verdict to write and nobody will delete the container: its cgroup goes
    // now, and the system log says why (the monitor has no terminal).
    if (!record_exit(plan, init.pid, status ? *status : ExitStatus{}) && state_dir_lost(plan)) {
        auto removed = remove_lost_cgroup(plan);
        ::openlog("husk", LOG_PID, LOG_DAEMON);
        ::syslog(LOG_ERR, "container %s: its state directory was removed while it ran: its record is lost; %s",
                 plan.id.str().c_str(), removed ? "its cgroup was removed" : removed.error().message().c_str());
        ::closelog();
    }
    ::_exit(0);
}

void kill_init(pid_t pid) {
    int fd = sys::pidfd_open(pid, 0);
    if (fd < 0) return;
    sys::pidfd_send_signal(fd, SIGKILL);
    ::close(fd);
}

}  // namespace husk::monitor
