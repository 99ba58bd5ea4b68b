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

}  // namespace

void record_exit(const std::string& state_path, pid_t init, const monitor::ExitStatus& status) {
    auto slash = state_path.rfind('/');
    auto dir = state::StateDir::open(state_path.substr(0, slash), state_path.substr(slash + 1));
    if (!dir || !dir->lock(state::Lock::exclusive)) return;
    auto record = dir->read_record();
    if (!record || record->pid != init || record->exit) return;
    state::ExitRecord exit;
    exit.finished = now_rfc3339_nano();
    exit.code = status.code;
    exit.signal = status.signal;
    if (!status.exec_error.empty()) {
        exit.reason = "setup-failed";
        exit.detail = status.exec_error;
    } else if (!status.known) {
        exit.reason = "unknown";
        exit.detail = "init was not our child and the kernel did not report its exit status (PIDFD_INFO_EXIT)";
    } else if (status.signal != 0) {
        exit.reason = "signaled";
        exit.detail = std::string("terminated by signal ") + std::to_string(status.signal);
    } else {
        exit.reason = "exited";
        exit.detail = "exit code " + std::to_string(status.code);
    }
    record->exit = exit;
    (void)dir->write_record(*record);
}

[[noreturn]] void run_monitor(const std::string& state_path, process::Spawned init,
                              monitor::Role role, int report) {
    ::close(report);
    detach({init.pidfd.get(), init.sync.get()});
    monitor::WaitOptions options;
    options.role = role;
    options.sync = init.sync.get();
    options.pid = init.pid;
    if (auto stat = read_proc_stat(init.pid)) options.start_time = stat->start_time;
    auto status = monitor::wait_for_exit(init.pidfd.get(), options);
    record_exit(state_path, init.pid, status ? *status : monitor::ExitStatus{});
    ::_exit(0);
}

void kill_init(pid_t pid) {
    int fd = sys::pidfd_open(pid, 0);
    if (fd < 0) return;
    sys::pidfd_send_signal(fd, SIGKILL);
    ::close(fd);
}

}  // namespace husk::container
