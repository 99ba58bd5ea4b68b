// `husk run` in the foreground: the signals a terminal or a supervisor sends go to init, as with runc, and a
// stop request (HUP, INT, QUIT, TERM) is a cancel that husk enforces: the container gets the kill grace to end,
// then the whole of it is killed (docs/husk.8.md, run).
#pragma once

#include <csignal>
#include <memory>
#include <optional>

#include "monitor/wait.hpp"
#include "monitor/watcher.hpp"

namespace husk::monitor {

// Blocks `set` while the loop runs, so each signal arrives here instead of acting on husk; each forwarded one is
// noted for the verdict (`killed`). With `cancel`, the first stop request also arms the grace.
// Until the loop runs (create, hooks, start), each signal of `set` is only noted by a handler (SA_RESTART: setup's
// system calls go on), instead of ending husk with no verdict; the forwarder raises the noted ones again once it
// has blocked them, so they are forwarded (a cancel during setup is enforced as soon as there is a loop). exec
// resets the handler in init and in hooks.
void defer_signals(const sigset_t& set);

std::unique_ptr<Watcher> forward_signals(const sigset_t& set, int pidfd, std::optional<Cancel> cancel);

}  // namespace husk::monitor
