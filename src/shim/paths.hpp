// Where the shim keeps things: its containers' state root (what `husk --root` reads) and its socket.
#pragma once

#include <string>
#include <string_view>

#include "husk/error.hpp"

namespace husk::shim {

// /run/containerd/husk/<namespace>: `husk --root /run/containerd/husk/default state ID` reads a task's record
// and verdict while containerd holds the task (docs/clients.md). The namespace must be a containerd namespace
// name (letters, digits, '.', '_', '-'), so it can never leave the directory.
Result<std::string> state_root(std::string_view ns);

// The socket containerd connects to, "unix:///run/containerd/s/husk-<hash>": one per group (the task's id, or
// its pod's sandbox id), named from containerd's address, the namespace and the group, so a second `start` of
// the same group finds the shim that serves it (as runc's shim does).
std::string socket_address(std::string_view containerd_address, std::string_view ns, std::string_view group);
// The path of a "unix://" address.
std::string socket_path(std::string_view address);

}  // namespace husk::shim
