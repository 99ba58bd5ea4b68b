// update: new cgroup limits for a live container (runc update). The cgroup module decides what to write; this
// finds the container, checks its status and hands over its effective config.
#include "cgroup/limits.hpp"
#include "container/config.hpp"
#include "container/observe.hpp"
#include "husk/container.hpp"

namespace husk {

Result<void> update_container(const Runtime& runtime, const ContainerId& id, const spec::Resources& resources) {
    auto dir = TRY(state::StateDir::open(runtime.root, id));
    // Exclusive: two updates (or an update and a pause) must not interleave their writes.
    TRY(dir.lock(state::Lock::exclusive));
    std::optional<state::Record> record;
    if (auto r = dir.read_record()) record = std::move(*r);
    else if (r.error().err != ENOENT) return std::unexpected(r.error());
    container::Status status = container::observe(dir, record).status;
    if (!record || status == container::Status::stopped || status == container::Status::creating)
        return fail_msg(std::string("container not running (") + container::status_name(status) + "): cannot update");
    container::ContainerConfig config = TRY(container::read_config(dir, *record));
    if (!config.cgroup) return fail_msg("cannot update: the container has no cgroup (--cgroup-manager disabled)");
    return cgroup::update_cgroup(*config.cgroup, resources, config.spec, config.husk);
}

}  // namespace husk
