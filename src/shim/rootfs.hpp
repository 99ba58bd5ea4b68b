// The task's root filesystem as containerd hands it over (CreateTaskRequest.rootfs: the snapshotter's mounts,
// e.g. one overlay, or a bind of the native snapshotter's directory), mounted on <bundle>/rootfs before the
// container is created and unmounted when the task is deleted, as runc's shim does.
#pragma once

#include <string>
#include <vector>

#include "husk/error.hpp"
#include "ttrpc/task_api.hpp"

namespace husk::shim {

// In order, each on <bundle>/rootfs. On failure whatever was mounted is unmounted again.
Result<void> mount_rootfs(const std::string& bundle, const std::vector<ttrpc::Mount>& mounts);

// Every mount on <bundle>/rootfs, top first; nothing mounted there is not an error.
Result<void> unmount_rootfs(const std::string& bundle);

}  // namespace husk::shim
