// The steps both recipes take, the container init (child_main) and a process `husk exec` adds to a running
// container (exec_main): reporting a failure, the session and the pty, cwd, the credentials and the confinement
// in docs/security.md's order (the executable lookup, the fd seal, Landlock + seccomp), the posture, the
// workload's execve.
// Child side only: system calls, no allocation, no exceptions, no logging
// (docs/design.md, "Prepare in the parent, apply in the child").
#pragma once

#include "caps/credentials.hpp"
#include "process/container_plan.hpp"
#include "process/workload.hpp"
#include "process/sync.hpp"
#include "landlock/landlock.hpp"
#include "seccomp/filter.hpp"

namespace husk::process::steps {

// Sends the error to the parent and exits (127 for exec_failed, as a missing executable exits with runc).
[[noreturn]] void die(int sync, const Error& error, SyncType type = SyncType::error) noexcept;
// Runs one step; on failure reports "<name>: <error>" and exits.
void step(int sync, const char* name, Result<void> result) noexcept;
// The same for a step that gives back what it made (an fd the next steps use).
template <typename T>
T step(int sync, const char* name, Result<T> result) noexcept {
    if (!result) {
        Error e = result.error();
        die(sync, e.context(name));
    }
    return std::move(*result);
}
Result<void> check(int rc, const char* op, const char* subject = "") noexcept;

// Closes every fd from `first` up except the `count` fds in `keep` (in any order, ones below `first` ignored):
// a child cloned from a parent holding host fds (a cgroup directory, the console socket, namespace files)
// drops what it does not need before it waits in the container, where a process allowed to ptrace it
// could take them (runc's in-container process is a fresh exec holding only what it was given).
Result<void> close_fds_except(unsigned first, const int* keep, int count) noexcept;

// setsid(2): a new session, as every process a runtime starts gets, and the one that may own a terminal. It
// fails only for a process group leader, which a freshly cloned process is not.
void start_session() noexcept;

// In a user namespace we start as the overflow ids until we take ids 0: setresgid(2), then setresuid(2).
Result<void> become_root_in_user_ns() noexcept;

// Our own status file in the host's /proc, opened before the container's root is entered (the container may
// mount no /proc, or mask it) and read at the end for the verified posture (report_posture). Dies on failure.
int open_own_status(int sync) noexcept;

// A pty from the devpts at /dev/ptmx as we see it now (the container's, after pivot_root or setns), sized
// from process.consoleSize. The master goes to the parent (`console` message, for --console-socket); the
// slave, close-on-exec, is returned.
Result<int> open_pty(const WorkloadPlan& workload, int sync) noexcept;
// The slave becomes our controlling terminal (we lead a new session) and fds 0-2.
Result<void> attach_terminal(int slave) noexcept;

// chdir(process.cwd), refusing a directory the root we have cannot reach (CVE-2024-21626: a leaked
// directory fd of the host as cwd).
Result<void> enter_cwd(const WorkloadPlan& workload) noexcept;

// What the credentials and confinement step takes besides the plans: the recipe's own fds.
struct ConfinementFds {
    int stdout_pipe = -1;  // the output pump's pipes, dup2'd onto 1 and 2 when >= 0 (init only)
    int stderr_pipe = -1;
    int inherited_by_exec = -1;  // kept open across execve when >= 0: husk-init's report pipe (init only)
    int parent_death_signal = 0;  // --die-with-parent: PR_SET_PDEATHSIG, 0: none (init only)
};

// Where the credentials and confinement step leaves the process: the executable it found, the filter in force
// from then on (null: none yet or none at all; for die_confined), the Landlock ABI for the posture.
struct Confined {
    const char* executable = nullptr;
    const seccomp::SeccompPlan* filter = nullptr;
    int landlock_abi = 0;
};

// Steps 12-15 of both recipes, in docs/security.md's order ("Order in the container's init"): the credentials
// (apply_credentials), the parent-death signal, no_new_privs, then the executable lookup and the fd seal, then
// Landlock and seccomp. Without no_new_privs the kernel takes a Landlock domain or a seccomp filter only from a
// holder of CAP_SYS_ADMIN, so then the lookup, the seal and the confinement come before the credentials
// instead. Dies on failure.
Confined apply_credentials_and_confinement(int sync, const caps::CredentialsPlan& credentials,
                                           const WorkloadPlan& workload, const Confinement& confinement,
                                           const ConfinementFds& fds) noexcept;

// In docs/security.md's order: the bounding set, then the ids, then the capabilities (and ambient), then the umask.
// Dies on failure (through die_confined: the filter may already be loaded, see below).
void apply_credentials(int sync, const seccomp::SeccompPlan* filter, const caps::CredentialsPlan& credentials) noexcept;

// What is in force now, to the parent (runs under the filter: read, write, close only).
Result<void> report_posture(int sync, int status_fd, int landlock_abi) noexcept;

// The workload's execve(2); returns only when it failed, with the error for die_not_executed. Not
// [[noreturn]] on purpose: the filter is in force here, and a sanitizer build calls sigaltstack(2) before every
// call to a noreturn function (AddressSanitizer's __asan_handle_no_return), which a tight allow-list denies.
Error exec_workload(const Confined& confined, const WorkloadPlan& workload) noexcept;
// The workload will not run: a byte goes into `exec_fifo` first when it is >= 0 (init: it tells `husk start`
// the workload was not executed, docs/ARCHITECTURE.md "create → start, step by step"), then the error, as
// exec_failed, to the parent; exit 127.
[[noreturn]] void die_not_executed(int sync, const seccomp::SeccompPlan* filter, Error error, int exec_fifo) noexcept;

// After the filter is loaded (`filter` not null), a failure with an errno the filter returns may be a
// denial by the profile: the error says so.
[[noreturn]] void die_confined(int sync, const seccomp::SeccompPlan* filter, Error error,
                               SyncType type = SyncType::error) noexcept;
void confined_step(int sync, const seccomp::SeccompPlan* filter, const char* name, Result<void> result) noexcept;

}  // namespace husk::process::steps
