// The steps both recipes take, the container init (child_main) and a process exec'd into a running
// container (exec_main): reporting a failure, the pty, cwd, the fd seal, Landlock + seccomp, the posture.
// Child side only: system calls, no allocation, no exceptions, no logging
// (docs/design.md, "Prepare in the parent, apply in the child").
#pragma once

#include "caps/credentials.hpp"
#include "process/workload.hpp"
#include "process/sync.hpp"
#include "landlock/landlock.hpp"
#include "seccomp/filter.hpp"

namespace husk::process::steps {

// Sends the error to the parent and exits (127 for exec_failed, as a missing executable exits with runc).
[[noreturn]] void die(int sync, const Error& error, SyncType type = SyncType::error) noexcept;
// Runs one step; on failure reports "<name>: <error>" and exits.
void step(int sync, const char* name, Result<void> result) noexcept;
Result<void> check(int rc, const char* op, const char* subject = "") noexcept;

// Closes every fd from `first` up except the `count` fds in `keep` (in any order, ones below `first` ignored):
// a child cloned from a parent holding host fds (a cgroup directory, the console socket, namespace files)
// drops what it does not need before it waits in the container, where a process allowed to ptrace it
// could take them (runc's in-container process is a fresh exec holding only what it was given).
Result<void> close_fds_except(unsigned first, const int* keep, int count) noexcept;

// A pty from the devpts at /dev/ptmx as we see it now (the container's, after pivot_root or setns), sized
// from process.consoleSize. The master goes to the parent (`console` message, for --console-socket); the
// slave, close-on-exec, is returned.
Result<int> open_pty(const WorkloadPlan& workload, int sync) noexcept;
// The slave becomes our controlling terminal (we lead a new session) and fds 0-2.
Result<void> attach_terminal(int slave) noexcept;

// chdir(process.cwd), refusing a directory the root we have cannot reach (CVE-2024-21626: a leaked
// directory fd of the host as cwd).
Result<void> enter_cwd(const WorkloadPlan& workload) noexcept;

// Finds the executable (a missing one fails with runc's words), points stdout/stderr at the given pipes
// when >= 0, and marks every fd but 0-2 and --preserve-fds close-on-exec. Dies on failure.
const char* prepare_for_exec(const WorkloadPlan& workload, int stdout_pipe, int stderr_pipe, int sync) noexcept;

// Landlock, then seccomp (docs/security.md, "Order in the container's init"); a notify listener fd goes to the parent.
Result<void> confine(const landlock::LandlockPlan& landlock, const seccomp::SeccompPlan* seccomp, int sync,
                     int& landlock_abi) noexcept;

// What is in force now, to the parent (runs under the filter: read, write, close only).
Result<void> report_posture(int sync, int status_fd, int landlock_abi) noexcept;

// In docs/security.md's order: the bounding set, then the ids, then the capabilities (and ambient), then the umask.
// Dies on failure (through die_confined: the filter may already be loaded, see below).
void apply_credentials(int sync, const seccomp::SeccompPlan* filter, const caps::CredentialsPlan& credentials) noexcept;

// After the filter is loaded (`filter` not null), a failure with an errno the filter returns may be a
// denial by the profile: the error says so.
[[noreturn]] void die_confined(int sync, const seccomp::SeccompPlan* filter, Error error,
                               SyncType type = SyncType::error) noexcept;
void confined_step(int sync, const seccomp::SeccompPlan* filter, const char* name, Result<void> result) noexcept;

}  // namespace husk::process::steps
