// list: every container under the root, read without a lock (every write is atomic; docs/ARCHITECTURE.md,
// "State"). A container's directory is opened only when its record alone does not settle its status.
#include <fcntl.h>

#include <optional>
#include <utility>

#include "base/fs.hpp"
#include "container/observe.hpp"
#include "husk/container.hpp"
#include "state/state_dir.hpp"
#include "state/state_root.hpp"

namespace husk {
namespace {

using container::Observed;

// The record is the caller's to drop: its strings move.
ContainerSummary summary(const ContainerId& id, const Observed& observed, std::optional<state::Record>&& record) {
    if (!record) return ContainerSummary{id, observed.pid, container::status_name(observed.status), "", "", ""};
    return ContainerSummary{id, observed.pid, container::status_name(observed.status), std::move(record->bundle),
                            std::move(record->created), std::move(record->owner)};
}

// One container, or nothing when it is not one any more (or never was: no lock file, a symlink). A container
// created or deleted meanwhile reads as whatever part of it is there, never as an error.
std::optional<ContainerSummary> list_one(const std::string& root_path, state::StateRoot* root, const ContainerId& id) {
    // The usual case, a plain record: one read, its lock file checked, and for a stopped container only the
    // check that its init's pid no longer names it (pid + start time + boot id, pidfd_open).
    if (root != nullptr) {
        if (auto record = root->read_plain_record(id)) {
            if (!root->has_lock(id)) return std::nullopt;
            if (auto settled = container::observe_record(*record)) return summary(id, *settled, std::move(record));
            auto dir = state::StateDir::open_unlocked(root_path, id, root->fd());
            if (!dir) return std::nullopt;
            const Observed observed = container::observe_live(*dir, *record);
            return summary(id, observed, std::move(record));
        }
    }
    // Anything else (no record yet, a symlink, a corrupt record) as StateDir reads it.
    auto dir = state::StateDir::open_unlocked(root_path, id, root != nullptr ? root->fd() : AT_FDCWD);
    if (!dir) return std::nullopt;
    std::optional<state::Record> record;
    if (auto r = dir->read_record()) record = std::move(*r);
    const Observed observed = container::observe(*dir, record);
    return summary(id, observed, std::move(record));
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
