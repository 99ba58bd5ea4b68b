// SCMP_ACT_NOTIFY, parent side: hand the listener fd and the "container process state" to the seccomp
// agent at linux.seccomp.listenerPath (config-linux.md "Seccomp" and "The Container Process State").
#pragma once

#include <sys/types.h>

#include <string>
#include <string_view>

#include "husk/error.hpp"

namespace husk::seccomp {

// {"ociVersion", "fds": ["seccompFd"], "pid", "metadata" (omitted when empty), "state"}. `state_json` is the
// container's OCI state (runtime.md "State") as husk prints it; it must be a JSON object.
Result<std::string> container_process_state_json(std::string_view oci_version, pid_t pid, std::string_view metadata,
                                                 std::string_view state_json);

// Connects to the AF_UNIX SOCK_STREAM socket at listener_path, sends process_state_json with notify_fd
// attached (SCM_RIGHTS, first sendmsg only) and closes the connection: "exactly one container process state
// per connection". Any failure is an error (the spec: the runtime MUST generate an error).
Result<void> send_to_listener(const std::string& listener_path, int notify_fd, const std::string& process_state_json);

}  // namespace husk::seccomp
