// Waiting for the container init to end, whether we are its parent or not (docs/ARCHITECTURE.md, "Process shape").
#pragma once

#include <sys/types.h>

#include <chrono>
#include <csignal>
#include <functional>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "husk/error.hpp"
#include "monitor/watcher.hpp"

namespace husk::monitor {

enum class Role { parent, watcher };  // parent: waitid reaps; watcher: init belongs to a subreaper

struct Cancel {
    std::chrono::milliseconds grace;
    std::function<void()> kill;
};

struct WaitOptions {
    Role role = Role::parent;
    // The watcher's fallback while init is an unreaped zombie needs to know it is still our init.
    pid_t pid = 0;
    std::uint64_t start_time = 0;
    int sync = -1;  // init's sync socket: reports a failed execve
    int init_report = -1;  // run.husk.init: husk-init's report of the program's wait status (Spawned)
    // Signals to forward to init while waiting (`husk run` in the foreground); empty = none.
    std::optional<sigset_t> forward;
    // With `forward`: the first stop request forwarded (HUP, INT, QUIT, TERM) cancels the run. The container gets
    // the grace to end, then `kill` ends all of it (cgroup.kill), as the wall-time limit does.
    std::optional<Cancel> cancel;
    // One per limit the policy sets (monitor/limits.hpp): watched while init lives, finished after the reap
    // (the pump drains to EOF) and before the caller reads the counters and writes the verdict
    // (docs/ARCHITECTURE.md, "The monitor").
    std::vector<std::unique_ptr<Watcher>> watchers;
};

// Blocks (epoll on pidfd, sync socket, signalfd and the watchers' fds) until init has exited.
// The watchers start when init execs (the sync socket's EOF), or at once without a socket.
Result<ExitStatus> wait_for_exit(int pidfd, WaitOptions& options);

ExitStatus decode_wait_status(int status);

}  // namespace husk::monitor
