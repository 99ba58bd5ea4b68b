// Waiting for the container init to end, whether we are its parent or not (DESIGN.md section 3).
#pragma once

#include <sys/types.h>

#include <csignal>
#include <cstdint>
#include <optional>
#include <string>

#include "husk/error.hpp"

namespace husk::monitor {

struct ExitStatus {
    bool known = false;  // false when neither waitid nor PIDFD_INFO_EXIT could tell (kernel < 6.15, not parent)
    int code = -1;       // exit code, or 128 + signal (as a shell reports it)
    int signal = 0;      // the terminating signal, 0 for a normal exit
    std::string exec_error;  // init failed after `start` (exec or startContainer hook), from the sync socket
};

enum class Role { parent, watcher };  // parent: waitid reaps; watcher: init belongs to a subreaper

struct WaitOptions {
    Role role = Role::parent;
    // The watcher's fallback while init is an unreaped zombie needs to know it is still our init.
    pid_t pid = 0;
    std::uint64_t start_time = 0;
    int sync = -1;  // init's sync socket: reports a failed execve
    // Signals to forward to init while waiting (`husk run` in the foreground); empty = none.
    std::optional<sigset_t> forward;
};

// Blocks (epoll on pidfd, sync socket, signalfd) until init has exited.
Result<ExitStatus> wait_for_exit(int pidfd, const WaitOptions& options);

ExitStatus decode_wait_status(int status);

}  // namespace husk::monitor
