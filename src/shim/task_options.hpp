// CreateTaskRequest.options: what a client asks of the runtime beyond the bundle. containerd's clients send
// runc's option types to any runtime (ctr --no-pivot: containerd.linux.runc.CreateOptions; CRI's runc
// handlers: containerd.runc.v1.Options; other CRI handlers: runtimeoptions.v1.Options), so husk's shim reads
// those: no_pivot_root is honoured, a systemd cgroup driver is refused (husk has none), and what only concerns
// runc's own shim (its binary, root, criu paths, the shim's cgroup) does not change the container. Any other
// type is refused, naming it.
#pragma once

#include <optional>

#include "husk/error.hpp"
#include "ttrpc/task_api.hpp"

namespace husk::shim {

struct TaskOptions {
    bool no_pivot = false;
};

Result<TaskOptions> parse_task_options(const std::optional<ttrpc::Any>& options);

}  // namespace husk::shim
