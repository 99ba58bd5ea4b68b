// The two short-lived actions containerd runs the shim binary for (containerd 1.6 runtime/v2/binary.go), each
// in the task's bundle directory:
// - start: find or start the serving shim of the task's group, write its address to ./address and print it;
// - delete (`remove` here): containerd's cleanup after a shim it lost: the container killed and deleted, the
//   rootfs unmounted, and a containerd.task.v2.DeleteResponse printed.
#pragma once

#include <functional>
#include <string>

#include "husk/error.hpp"
#include "husk/unique_fd.hpp"
#include "shim/args.hpp"

namespace husk::shim {

// `serve` runs in the forked serving shim (setsid, stdio on /dev/null) with the listening socket and its path,
// and never returns into start.
using Serve = std::function<int(UniqueFd listener, const std::string& socket_path)>;
Result<void> start_action(const ShimArgs& args, const Serve& serve);

Result<void> remove_action(const ShimArgs& args);

}  // namespace husk::shim
