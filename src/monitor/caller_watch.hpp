// `husk run --die-with-parent`: the process that started husk (the caller) is watched through a pidfd in the
// monitor's loop; when it dies, even of SIGKILL, the container is killed at once and husk cleans up after it as
// after any end (the caller's death cannot be caught by the caller, so husk, still alive, does the work).
#pragma once

#include <sys/types.h>

#include <functional>
#include <memory>

#include "husk/error.hpp"
#include "husk/unique_fd.hpp"
#include "monitor/watcher.hpp"

namespace husk::monitor {

struct Caller {
    pid_t pid = 0;
    UniqueFd pidfd;
};

// husk's parent, as a pidfd; an error when it is gone already (husk was reparented before it could look).
Result<Caller> open_caller();

std::unique_ptr<Watcher> watch_caller(Caller caller, std::function<void()> kill);

}  // namespace husk::monitor
