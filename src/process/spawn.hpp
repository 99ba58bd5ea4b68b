// spawn_init: clone3 the container init into its namespaces and cgroup, drive it through setup over the sync
// socket (id maps, hooks, console), and return once it waits for `start`.
#pragma once

#include <sys/types.h>

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "husk/error.hpp"
#include "husk/spec.hpp"
#include "husk/unique_fd.hpp"
#include "process/container_plan.hpp"

namespace husk::process {

enum class Parent { spawner, spawners_parent };  // who init's parent is: us, or (CLONE_PARENT) our parent

// With process.terminal, who gets init's pty master: the --console-socket peer, or the spawner itself
// (Spawned::console), which relays its caller's terminal (`husk run` in the foreground).
enum class ConsoleTarget { socket, spawner };

struct SpawnOptions {
    int cgroup_fd = -1;        // CLONE_INTO_CGROUP when >= 0
    Parent parent = Parent::spawner;
    int console_socket = -1;   // where the pty master goes (--console-socket), when process.terminal
    ConsoleTarget console_target = ConsoleTarget::socket;
    int exec_fifo = -1;        // O_RDWR fd of <state>/exec.fifo, inherited by init
    int stdout_pipe = -1;      // the output pump's write ends, init's fds 1 and 2 from exec on (-1: inherit)
    int stderr_pipe = -1;
    std::optional<int> oom_score_adj;
    // --die-with-parent, when init's parent is the spawner (the process that watches the caller): the signal
    // init gets from the kernel if that process dies first (PR_SET_PDEATHSIG); 0 for none.
    int parent_death_signal = 0;
    // Fds of ours the child must close before anything else: the state dir's flock would otherwise stay held
    // by init until it execs, and `start` would wait for it forever.
    std::vector<int> close_in_child;
    const spec::Hooks* hooks = nullptr;   // prestart + createRuntime run here, in the runtime namespace
    // The OCI state JSON for hooks, given the status to report and init's pid.
    std::function<std::string(std::string_view status, pid_t pid)> hook_state;
    // Called once init exists, before it is let go: an error abandons init (SIGKILL) and fails the spawn.
    std::function<Result<void>(pid_t pid)> on_cloned;
};

struct Spawned {
    pid_t pid = 0;
    UniqueFd pidfd;
    UniqueFd sync;  // stays open: init reports a failed execve after start through it
    std::optional<Posture> posture;  // what init reported in force, checked against the plan
    UniqueFd console;  // the pty master, with ConsoleTarget::spawner and process.terminal
    UniqueFd init_report;  // run.husk.init: husk-init's report of the program's wait status (ContainerPlan)
};

// The pty master the child sent (SyncType::console) goes where `target` says: kept in `kept` for the spawner's
// relay, or sent to the --console-socket peer as runc does (one fd in SCM_RIGHTS, named "/dev/ptmx").
Result<void> deliver_console(UniqueFd master, ConsoleTarget target, int console_socket, UniqueFd& kept);

// SCMP_ACT_NOTIFY: the listener fd the process sent and its container process state (pid, listenerMetadata,
// the OCI state `state_json`) go to linux.seccomp.listenerPath (config-linux.md "Seccomp"), as runc does.
Result<void> forward_listener(const std::optional<seccomp::SeccompPlan>& filter, pid_t pid,
                              const std::string& state_json, int fd);

Result<Spawned> spawn_init(const ContainerPlan& plan, ChildBuffers& buffers, const SpawnOptions& options);

}  // namespace husk::process
