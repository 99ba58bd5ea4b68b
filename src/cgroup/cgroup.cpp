// prepare_cgroup (parent, pure apart from reading the hierarchy), create_cgroup and remove_cgroup.
#include "cgroup/cgroup.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <optional>
#include <thread>
#include <utility>

#include "base/fs.hpp"
#include "cgroup/controllers.hpp"
#include "cgroup/device_filter.hpp"
#include "cgroup/hierarchy.hpp"
#include "cgroup/limits.hpp"
#include "cgroup/resources_check.hpp"

namespace husk::cgroup {
namespace {

using namespace std::chrono_literals;

std::vector<std::string> components(const std::string& path) {
    std::vector<std::string> out;
    std::string rest = relative_to_root(path);
    for (std::size_t at = 0; at <= rest.size();) {
        std::size_t slash = std::min(rest.find('/', at), rest.size());
        out.push_back(rest.substr(at, slash - at));
        at = slash + 1;
    }
    return out;
}

std::string parent_of(const std::string& path) {
    std::size_t slash = path.rfind('/');
    return slash == 0 || slash == std::string::npos ? "/" : path.substr(0, slash);
}

// One pass of mkdir -p, opening each level relative to the one above (cgroupfs has no symlinks, and
// O_NOFOLLOW keeps it that way). Records what it made in `created`, relative to the root.
Result<UniqueFd> try_make_path(int root_fd, const CgroupLocation& cgroup, std::vector<std::string>& created) {
    UniqueFd current;
    int parent = root_fd;
    std::string relative;
    for (const std::string& name : components(cgroup.path)) {
        relative += (relative.empty() ? "" : "/") + name;
        if (::mkdirat(parent, name.c_str(), 0755) == 0) {
            if (std::find(created.begin(), created.end(), relative) == created.end()) created.push_back(relative);
        } else if (errno != EEXIST) {
            return fail_sys(errno, "mkdir", cgroup.mount + "/" + relative);
        }
        current = TRY(open_fd_at(parent, name, O_DIRECTORY | O_RDONLY | O_NOFOLLOW, cgroup.mount + "/" + relative));
        parent = current.get();
    }
    return current;
}

// A concurrent remove_cgroup may rmdir an empty /husk/... ancestor between our mkdir and the next level
// (ENOENT): start again, a few times.
Result<UniqueFd> make_path(int root_fd, const CgroupLocation& cgroup, std::vector<std::string>& created) {
    for (int attempt = 1;; ++attempt) {
        auto leaf = try_make_path(root_fd, cgroup, created);
        if (leaf || leaf.error().err != ENOENT || attempt == 4) return leaf;
    }
}

// rmdir, waiting up to about a second while the kernel still counts exiting processes (EBUSY).
Result<void> remove_dir(int root_fd, const std::string& relative, const std::string& where) {
    auto deadline = std::chrono::steady_clock::now() + 1s;
    for (auto delay = 5ms;; delay = std::min(delay * 2, std::chrono::milliseconds(100))) {
        if (::unlinkat(root_fd, relative.c_str(), AT_REMOVEDIR) == 0 || errno == ENOENT) return {};
        if (errno != EBUSY || std::chrono::steady_clock::now() >= deadline) return fail_sys(errno, "rmdir", where);
        std::this_thread::sleep_for(delay);
    }
}

// Removes a cgroup and the child cgroups below it, deepest first (a cgroup with children is EBUSY).
Result<void> remove_tree(int root_fd, const std::string& relative, const std::string& where) {
    auto opened = open_fd_at(root_fd, relative, O_DIRECTORY | O_RDONLY | O_NOFOLLOW, where);
    if (!opened && opened.error().err == ENOENT) return {};
    UniqueFd dir = TRY(std::move(opened));
    std::vector<std::string> children = TRY(list_child_cgroups(dir.get(), where));
    for (const std::string& child : children)
        TRY(remove_tree(root_fd, relative + "/" + child, where + "/" + child));
    return remove_dir(root_fd, relative, where);
}

// Undoes a partial create_cgroup unless dismissed.
class Rollback {
public:
    Rollback(int root_fd, const std::vector<std::string>& created) : root_fd_(root_fd), created_(created) {}
    ~Rollback() {
        if (!armed_) return;
        for (auto it = created_.rbegin(); it != created_.rend(); ++it) ::unlinkat(root_fd_, it->c_str(), AT_REMOVEDIR);
    }
    void dismiss() { armed_ = false; }

private:
    int root_fd_;
    const std::vector<std::string>& created_;
    bool armed_ = true;
};

}  // namespace

std::string no_cgroup_reason(Manager manager) {
    if (manager == Manager::undelegated)
        return "husk runs without root and found no delegated cgroup v2 subtree to use (docs/rootless.md)";
    return "the cgroup manager is disabled";
}

namespace {

// Without root the container's cgroup is made in the delegated subtree: a relative or empty cgroupsPath below
// it, as below the v2 root with root; an absolute one must already lie in it.
Result<std::string> delegated_path(const std::string& resolved, std::string_view cgroups_path, std::string_view delegated) {
    if (cgroups_path.empty() || cgroups_path.front() != '/') return std::string(delegated) + resolved;
    if (resolved.starts_with(std::string(delegated) + "/")) return resolved;
    return fail_msg("linux.cgroupsPath \"" + std::string(cgroups_path) + "\": without root husk makes cgroups only in the "
                    "subtree delegated to it, " + std::string(delegated) + " (docs/rootless.md)");
}

}  // namespace

Result<CgroupPlan> prepare_cgroup(const spec::Spec& spec, const spec::HuskSettings& husk,
                                  std::string_view container_id, Manager manager, std::string_view delegated) {
    static const spec::Resources no_resources;
    const spec::Resources& resources =
        spec.linux && spec.linux->resources ? *spec.linux->resources : no_resources;
    std::vector<ResourceRequest> requests = TRY(list_resource_requests(resources));

    CgroupPlan plan;
    plan.manager = manager;
    plan.delegated = std::string(delegated);
    plan.net = TRY(compile_net_programs(husk.net_allow, husk.net_ops,
                                        husk.net_ops_kill.value_or(false) ? BudgetEvents::ring : BudgetEvents::none));
    if (!plan.net.empty()) {
        if (spec.process) TRY(check_net_policy_capabilities(*spec.process, "process"));
        if (plan.disabled())
            return fail_msg("run.husk.net-allow / run.husk.net-ops: the network policy is enforced on the container's "
                            "cgroup, but " + no_cgroup_reason(manager));
    }
    if (plan.disabled()) {
        if (!resources.devices.empty())
            return fail_msg("linux.resources.devices: the device allow-list needs a cgroup, but " +
                            no_cgroup_reason(manager));
        TRY(check_no_resource_requests(requests, no_cgroup_reason(manager)));
        return plan;
    }

    const std::string cgroups_path = spec.linux ? spec.linux->cgroups_path : std::string();
    plan.location.path = TRY(resolve_cgroup_path(cgroups_path, container_id));
    if (!delegated.empty()) {
        // The device program and the network policy's programs are eBPF programs attached to the cgroup, which
        // the kernel lets only CAP_SYS_ADMIN / CAP_BPF + CAP_NET_ADMIN of the initial namespace attach.
        const char* why = "an eBPF program on the cgroup, which only root may attach (docs/rootless.md)";
        if (!resources.devices.empty())
            return fail_msg(std::string("linux.resources.devices: without root the device allow-list cannot be enforced: ") + why);
        if (!plan.net.empty())
            return fail_msg(std::string("run.husk.net-allow / run.husk.net-ops: without root the network policy cannot be "
                                        "enforced: ") + why);
        plan.location.path = TRY(delegated_path(plan.location.path, cgroups_path, delegated));
    }
    if (!resources.devices.empty()) {
        plan.device_program = TRY(compile_device_program(with_default_devices(resources.devices, spec)));
        plan.has_device_rules = true;
    }
    plan.location.mount = TRY(find_v2_mount());
    if (!requests.empty()) {
        ControllerFacts facts = TRY(read_controller_facts(plan.location.mount));
        TRY(check_resource_requests(requests, facts));
    }
    LimitOptions options;
    options.oom_group = husk.oom_group.value_or(true);
    options.pids_reading = pids_limit_reading(spec.oci_version);
    options.where = plan.location.where();
    plan.controllers = needed_controllers(TRY(plan_limits(resources, options)));
    plan.resources = resources;
    plan.oom_group = options.oom_group;
    plan.pids_reading = options.pids_reading;
    return plan;
}

Result<Cgroup> create_cgroup(const CgroupPlan& plan) {
    if (plan.disabled()) return fail_msg("create cgroup: " + no_cgroup_reason(plan.manager));
    const CgroupLocation& location = plan.location;
    TRY(validate_cgroup_path(location.path));
    UniqueFd root = TRY(open_v2_root(location.mount));
    std::string where = location.where();

    std::vector<std::string> created;
    Rollback rollback(root.get(), created);
    UniqueFd leaf = TRY(make_path(root.get(), location, created));
    bool leaf_is_new = !created.empty() && created.back() == relative_to_root(location.path);
    if (!leaf_is_new) {
        // cgroup.events "populated" covers descendants too: any live process below means someone uses it.
        std::string events = TRY(read_cgroup_file(leaf.get(), "cgroup.events", where));
        if (flat_keyed_value(events, "populated") != 0)
            return fail_msg("cgroup \"" + where + "\" already has processes; husk will not share it");
    }
    TRY(enable_controllers(root.get(), location, plan.controllers, usage_controllers));
    if (plan.shared_parent) {
        // The leaf exists below it now: a cgroup with a child cannot be removed, so these limits are the ones
        // the container will live under (a delete that removed the empty parent just before was undone by
        // make_path, which made it again).
        std::string parent = std::string(shared_parents_subtree) + "/" + plan.shared_parent->name;
        UniqueFd parent_dir = TRY(open_fd_at(root.get(), relative_to_root(parent), O_DIRECTORY | O_RDONLY | O_NOFOLLOW,
                                             location.mount + parent));
        TRY(apply_shared_parent(parent_dir.get(), location.mount + parent, *plan.shared_parent));
    }
    LimitOptions options;
    options.oom_group = plan.oom_group;
    options.pids_reading = plan.pids_reading;
    options.where = where;
    options.has_file = [&leaf](std::string_view file) { return file_exists(leaf.get(), file); };
    options.controllers = split_words(TRY(read_cgroup_file(leaf.get(), "cgroup.controllers", where)));
    TRY(apply_limits(leaf.get(), where, TRY(plan_limits(plan.resources, options))));
    if (plan.has_device_rules) TRY(attach_device_program(leaf.get(), plan.device_program, where));
    std::shared_ptr<const NetMaps> net_maps;
    if (!plan.net.empty()) net_maps = std::make_shared<const NetMaps>(TRY(attach_net_programs(leaf.get(), plan.net, where)));
    rollback.dismiss();
    return Cgroup(std::move(leaf), location, std::move(created), std::move(net_maps));
}

Result<void> remove_cgroup(const CgroupLocation& cgroup) {
    TRY(validate_cgroup_path(cgroup.path));
    UniqueFd root = TRY(open_v2_root(cgroup.mount));
    TRY(remove_tree(root.get(), relative_to_root(cgroup.path), cgroup.where()));
    // Ancestors strictly inside /husk are husk's own; another container may still use them (EBUSY) or be
    // creating below them (create_cgroup retries), so stop quietly at the first that is not empty.
    std::string subtree = std::string(husk_subtree) + "/";
    for (std::string dir = parent_of(cgroup.path); dir.starts_with(subtree); dir = parent_of(dir))
        if (::unlinkat(root.get(), relative_to_root(dir).c_str(), AT_REMOVEDIR) != 0 && errno != ENOENT) break;
    return {};
}

Result<void> remove_cgroup(const Cgroup& cgroup) {
    const CgroupLocation& location = cgroup.location();
    UniqueFd root = TRY(open_v2_root(location.mount));
    TRY(remove_tree(root.get(), relative_to_root(location.path), location.where()));
    const std::vector<std::string>& created = cgroup.created();
    for (auto it = created.rbegin(); it != created.rend(); ++it)
        if (::unlinkat(root.get(), it->c_str(), AT_REMOVEDIR) != 0 && errno != ENOENT) break;
    return {};
}

}  // namespace husk::cgroup
