// list: every container under the root, read without a lock (every write is atomic; docs/ARCHITECTURE.md,
// "State"). A container's directory is opened only when its record alone does not settle its status.
#include <fcntl.h>

#include <optional>

#include "base/fs.hpp"
#include "container/observe.hpp"
#include "husk/container.hpp"
#include "state/state_dir.hpp"
#include "state/state_root.hpp"

namespace husk {
namespace {

using container::Observed;

ContainerSummary summary(const ContainerId& id, const Observed& observed, const std::optional<state::Record>& record) {
    return ContainerSummary{.id = id, .pid = observed.pid, .status = container::status_name(observed.status),
                            .bundle = record ? record->bundle : "", .created = record ? record->created : "",
                            .owner = record ? record->owner : ""};
}

// One container, or nothing when it is not one any more (or never was: no lock file, a symlink). A container
// created or deleted meanwhile reads as whatever part of it is there, never as an error.
std::optional<ContainerSummary> list_one(const std::string& root_path, state::StateRoot* root, const ContainerId& id) {
    // The usual case, a plain record: one read, its lock file checked, and for a stopped container nothing
    // else (its init's pid no longer names it).
    if (root != nullptr) {
        if (auto record = root->read_plain_record(id)) {
            if (!root->has_lock(id)) return std::nullopt;
            if (auto settled = container::observe_record(*record)) return summary(id, *settled, record);
            auto dir = state::StateDir::open_unlocked(root_path, id, root->fd());
            if (!dir) return std::nullopt;
            return summary(id, container::observe_live(*dir, *record), record);
        }
    }
    // Anything else (no record yet, a symlink, a corrupt record) as StateDir reads it.
    auto dir = state::StateDir::open_unlocked(root_path, id, root != nullptr ? root->fd() : AT_FDCWD);
    if (!dir) return std::nullopt;
    std::optional<state::Record> record;
    if (auto r = dir->read_record()) record = std::move(*r);
    return summary(id, container::observe(*dir, record), record);
}

}  // namespace

std::vector<ContainerSummary> list_containers(const Runtime& runtime) {
    std::vector<ContainerSummary> out;
    auto root = state::StateRoot::open(runtime.root);
    const std::vector<ContainerId> ids = state::list_ids(runtime.root);
    out.reserve(ids.size());
    for (const auto& id : ids)
        if (auto one = list_one(runtime.root, root ? &*root : nullptr, id)) out.push_back(std::move(*one));
    return out;
}

std::vector<ContainerId> list_container_ids(const Runtime& runtime) {
    std::vector<ContainerId> out;
    auto root = open_fd(runtime.root, O_RDONLY | O_DIRECTORY);
    const int root_fd = root ? root->get() : AT_FDCWD;
    for (const auto& id : state::list_ids(runtime.root))
        if (state::StateDir::open_unlocked(runtime.root, id, root_fd)) out.push_back(id);
    return out;
}

}  // namespace husk
