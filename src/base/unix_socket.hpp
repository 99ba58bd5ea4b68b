// A connected AF_UNIX stream socket by path: the --console-socket, containerd's sockets (the shim's events,
// a group's shim answering its socket).
#pragma once

#include <string>
#include <string_view>

#include "husk/error.hpp"
#include "husk/unique_fd.hpp"

namespace husk {

// Errors name `what`: `what "path": File name too long` for a path that does not fit sun_path, and
// `connect what "path": ...`; connect is retried on EINTR.
Result<UniqueFd> connect_unix(const std::string& path, std::string_view what);

}  // namespace husk
