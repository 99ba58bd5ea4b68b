#include "cgroup/shared_parent.hpp"

#include "base/quote.hpp"
#include "cgroup/cgroup.hpp"
#include "cgroup/hierarchy.hpp"
#include "cgroup/resources_check.hpp"

namespace husk::cgroup {

std::vector<LimitWrite> shared_parent_writes(const SharedParent& parent) {
    std::vector<LimitWrite> writes;
    if (parent.memory_bytes) {
        writes.push_back({parent.owner + " --memory", "memory", "memory.max", std::to_string(*parent.memory_bytes)});
        // A ceiling on RAM that swap could get round is no ceiling (husk's per-container rule too).
        writes.push_back({parent.owner + " --memory", "memory", "memory.swap.max", "0"});
    }
    if (parent.pids) writes.push_back({parent.owner + " --pids", "pids", "pids.max", std::to_string(*parent.pids)});
    if (parent.cpu_quota_usec)
        writes.push_back({parent.owner + " --cpus", "cpu", "cpu.max",
                          std::to_string(*parent.cpu_quota_usec) + " " + std::to_string(shared_cpu_period_usec)});
    return writes;
}

namespace {

// One request per ceiling, so a hybrid host's error names the ceiling and the controller missing.
Result<void> check_controllers(const std::vector<LimitWrite>& writes, const std::string& mount) {
    std::vector<ResourceRequest> requests;
    for (const LimitWrite& write : writes) requests.push_back({write.field, write.controller});
    return check_resource_requests(requests, TRY(read_controller_facts(mount)));
}

}  // namespace

Result<void> check_shared_parent(const SharedParent& parent) {
    std::vector<LimitWrite> writes = shared_parent_writes(parent);
    if (writes.empty()) return {};
    auto mount = find_v2_mount();
    if (!mount) return fail(mount.error().context(parent.owner + " --memory, --pids, --cpus"));
    return check_controllers(writes, *mount);
}

Result<void> place_under_shared_parent(CgroupPlan& plan, SharedParent parent, std::string_view cgroups_path,
                                       std::string_view container_id) {
    std::vector<LimitWrite> writes = shared_parent_writes(parent);
    if (writes.empty()) return {};
    if (plan.disabled())
        return fail_msg(parent.owner + " has cgroup ceilings (--memory, --pids, --cpus), which need a cgroup, but " +
                        no_cgroup_reason(plan.manager));
    if (!plan.delegated.empty())
        return fail_msg(parent.owner + " has cgroup ceilings (--memory, --pids, --cpus): without root husk does not "
                        "make the tenant's shared cgroup yet (docs/rootless.md)");
    if (!cgroups_path.empty() && cgroups_path.front() == '/')
        return fail_msg(parent.owner + " has cgroup ceilings, so its runs live below " +
                        std::string(shared_parents_subtree) + "/" + parent.name + "; linux.cgroupsPath " +
                        quoted(cgroups_path) + " is absolute and would put this one elsewhere (give a relative "
                        "path, or none)");
    TRY(check_controllers(writes, plan.location.mount));

    // prepare_cgroup resolved an empty or relative path below /husk: move it below the shared parent.
    std::string below = plan.location.path.substr(husk_subtree.size());
    if (cgroups_path.empty()) {
        below = '/';
        below += container_id;
    }
    plan.location.path = std::string(shared_parents_subtree) + "/" + parent.name + below;
    for (const std::string& controller : needed_controllers(writes))
        if (!list_contains(plan.controllers, controller)) plan.controllers.push_back(controller);
    plan.shared_parent = std::move(parent);
    return {};
}

Result<void> apply_shared_parent(int dir_fd, const std::string& where, const SharedParent& parent) {
    std::vector<LimitWrite> writes;
    for (LimitWrite& write : shared_parent_writes(parent))
        if (write.file != "memory.swap.max" || file_exists(dir_fd, write.file)) writes.push_back(std::move(write));
    return apply_limits(dir_fd, where, writes);
}

}  // namespace husk::cgroup
