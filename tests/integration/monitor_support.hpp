// Helpers the monitor's tests share: bundles with given args, waiting for the verdict, create + start.
#pragma once

#include <sys/types.h>

#include <string>
#include <string_view>
#include <vector>

#include "harness.hpp"

namespace husk::test {

void require_ok(const Output& out);
Bundle with_args(Sandbox& sb, std::vector<std::string> args);
// husk's own record in the state dir (monitorPid and the recorded cause are not part of the OCI state).
Json state_record(const Sandbox& sb, const std::string& id);
// Waits until the container has stopped and the monitor has written husk.exit; returns that state.
Json wait_for_exit(Sandbox& sb, const std::string& id, Ms timeout = Ms(20000));
bool wait_for_output(const Output& from, std::string_view text, Ms timeout = Ms(10000));
// The count of the verdict's (or husk.exit's) factor `kind`; 0 when it has none of that kind.
long long factor_count(const Json& verdict, std::string_view kind);
// create + start; returns init's pid.
pid_t create_and_start(Sandbox& sb, const Bundle& b, const std::string& id, std::vector<std::string> flags = {});
void delete_and_check(Sandbox& sb, const std::string& id);
// Adds `cap` ("CAP_MKNOD") to the bounding, effective and permitted sets of process.capabilities.
void add_capability(Json& config, const std::string& cap);
// Drops the pid namespace: the container sees the host's processes, and its other processes are not killed
// along with init.
void share_host_pid_namespace(Json& config);
// Reaps `pid` when it was reparented to us (the test may run under a subreaper, or be one).
void reap_if_ours(pid_t pid);
// Waits until the init named in `pid_file` has exited (gone, or a zombie nobody reaped yet: its monitor may be
// stopped); REQUIREs it within 20 s.
void wait_until_init_exited(const std::string& pid_file);
// True when `monitor` has an armed timerfd (/proc/PID/fdinfo it_value not zero): with only a CPU budget set,
// the budget's timer, armed from exec on (re-armed at each wakeup).
bool monitor_timer_armed(pid_t monitor);

// The test's own monitor, stopped with SIGSTOP (REQUIREd to be in state T before the constructor returns) so
// that only the kernel can act on the container meanwhile; SIGCONT by resume() or at the latest at scope end.
class StoppedMonitor {
public:
    explicit StoppedMonitor(pid_t pid);
    ~StoppedMonitor() { resume(); }
    StoppedMonitor(const StoppedMonitor&) = delete;
    StoppedMonitor& operator=(const StoppedMonitor&) = delete;
    void resume();

private:
    pid_t pid_;
    bool stopped_ = false;
};

}  // namespace husk::test
