// The process `husk exec` starts, as runc builds it: --process FILE as given, or the container's configured
// process with args replaced and the flags applied. Pure: no system calls.
#pragma once

#include "husk/container.hpp"
#include "husk/error.hpp"
#include "husk/spec.hpp"

namespace husk::container {

// `configured` is config.json's process from the state dir.
Result<spec::Process> exec_process(const spec::Process& configured, const ExecOptions& options);

// How a terminal reaches the caller: through --console-socket, or (not built yet) a relay of the caller's
// own terminal in the foreground. One place decides, so the relay can be wired in here.
Result<void> check_terminal_route(bool terminal, bool detach, const std::string& console_socket);

}  // namespace husk::container
