// update: new cgroup limits for a live container (runc update). The cgroup module decides what to write;
// this finds the container, checks its status and hands over the config it was created from.
#include <cerrno>

#include "base/fs.hpp"
#include "cgroup/limits.hpp"
#include "container/observe.hpp"
#include "container/record_cgroup.hpp"
#include "husk/container.hpp"
#include "spec/annotations.hpp"
#include "spec/parse.hpp"

namespace husk {
namespace {

// The config.json the container was created from: the copy create stored in the state dir (the bundle may
// have changed or gone since, and --config may have named another file), else the bundle's.
Result<spec::Spec> container_spec(const state::StateDir& dir, const state::Record& record) {
    auto stored = read_file_at(dir.fd(), "config.json");
    if (stored) return spec::parse_config(*stored);
    if (stored.error().err != ENOENT) return std::unexpected(stored.error());
    return spec::load_config(record.bundle + "/config.json");
}

}  // namespace

Result<void> update_container(const Runtime& runtime, const std::string& id, const spec::Resources& resources) {
    auto dir = TRY(state::StateDir::open(runtime.root, TRY(ContainerId::parse(id))));
    // Exclusive: two updates (or an update and a pause) must not interleave their writes.
    TRY(dir.lock(state::Lock::exclusive));
    std::optional<state::Record> record;
    if (auto r = dir.read_record()) record = std::move(*r);
    else if (r.error().err != ENOENT) return std::unexpected(r.error());
    container::Status status = container::observe(dir, record).status;
    if (!record || status == container::Status::stopped || status == container::Status::creating)
        return fail_msg(std::string("container not running (") + container::status_name(status) + "): cannot update");
    std::optional<cgroup::CgroupLocation> cgroup = container::cgroup_of(*record);
    if (!cgroup) return fail_msg("cannot update: the container has no cgroup (--cgroup-manager disabled)");
    spec::Spec spec = TRY(container_spec(dir, *record));
    spec::HuskAnnotations husk = TRY(spec::parse_husk_annotations(spec.annotations));
    return cgroup::update_cgroup(*cgroup, resources, spec, husk);
}

}  // namespace husk
