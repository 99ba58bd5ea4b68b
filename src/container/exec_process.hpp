// The process `husk exec` starts, as runc builds it: --process FILE as given, or the container's configured
// process with args replaced and the flags applied. Pure: no system calls.
#pragma once

#include "husk/container.hpp"
#include "husk/error.hpp"
#include "husk/spec.hpp"

namespace husk::container {

// `configured` is config.json's process from the state dir.
Result<spec::Process> exec_process(const spec::Process& configured, const ExecOptions& options);

// How a terminal reaches the caller: through --console-socket, or, in the foreground without one, husk keeps
// the pty master and relays its caller's own terminal (as `runc exec -t` does). Detached without a socket
// there is nobody to give the master to: refused, in runc's words.
enum class TerminalRoute { none, socket, relay };
Result<TerminalRoute> terminal_route(bool terminal, bool detach, const std::string& console_socket);

}  // namespace husk::container
