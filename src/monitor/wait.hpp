// Waiting for the container init to end, whether we are its parent or not (docs/ARCHITECTURE.md, "Process shape").
#pragma once

#include <sys/types.h>

#include <chrono>
#include <csignal>
#include <functional>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
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

// The wait as a set of fds in the caller's epoll (the pidfd, the sync socket, the watchers'), for a caller that
// watches more than one process in one loop (husk's containerd shim). Each fd is added with the key
// `first_key + k`, k < key_count(); the caller hands every ready key of this wait to on_ready.
// The watchers start when init execs (the sync socket's EOF), or at once without a socket.
class InitWait {
public:
    static Result<std::unique_ptr<InitWait>> open(int epoll, std::uint64_t first_key, int pidfd, WaitOptions options);
    ~InitWait();
    InitWait(const InitWait&) = delete;
    InitWait& operator=(const InitWait&) = delete;
    std::uint64_t key_count() const;
    // The keys of one epoll_wait that are this wait's (others are ignored). Init's exit status once it has
    // exited and every watcher finished (after this, the fds are out of the epoll set); nothing before.
    Result<std::optional<ExitStatus>> on_ready(std::span<const std::uint64_t> keys);

private:
    struct State;
    explicit InitWait(std::unique_ptr<State> state);
    std::unique_ptr<State> state_;
};

// Blocks (epoll on pidfd, sync socket, signalfd and the watchers' fds) until init has exited: an InitWait in
// an epoll of its own.
Result<ExitStatus> wait_for_exit(int pidfd, WaitOptions& options);

ExitStatus decode_wait_status(int status);

}  // namespace husk::monitor
