// prepare_rootfs: everything the child needs, decided and opened in the parent.
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "mnt/resolve.hpp"
#include "mnt/rootfs.hpp"
#include "mnt/rootfs_internal.hpp"

namespace husk::mnt {
namespace {

bool has_mount_namespace(const spec::Spec& spec) {
    if (!spec.linux) return false;
    for (const auto& ns : spec.linux->namespaces)
        if (ns.type == "mount") return true;
    return false;
}

bool has_new_cgroup_namespace(const spec::Spec& spec) {
    if (!spec.linux) return false;
    for (const auto& ns : spec.linux->namespaces)
        if (ns.type == "cgroup" && ns.path.empty()) return true;
    return false;
}

// runc sets up /dev unless the config binds something over /dev as a whole.
bool dev_is_bound(const std::vector<PreparedMount>& mounts) {
    for (const auto& mount : mounts)
        if (mount.destination == "/dev" && mount.kind == MountKind::bind) return true;
    return false;
}

}  // namespace

Result<RootfsPlan> prepare_rootfs(const spec::Spec& spec, const std::string& rootfs, RootfsOptions options) {
    // Every apply_* mounts in the current mount namespace: without a namespace of its own that would be the
    // host's, which husk never changes.
    if (!has_mount_namespace(spec))
        return fail_msg("linux.namespaces: a \"mount\" namespace is required (husk never mounts in the host's)");
    if (rootfs.empty() || rootfs[0] != '/') return fail_msg("root.path: the rootfs must be an absolute path");

    RootfsPlan plan;
    plan.rootfs = rootfs;
    plan.root_tmpfs = options.root_tmpfs;
    plan.binds_in_child = options.rootless;
    plan.no_pivot = options.no_pivot;
    plan.terminal = options.terminal;
    plan.readonly_root = spec.root.readonly;

    // config-linux.md "Rootfs Mount Propagation". Like runc: without a value, make "/" a recursive slave, so
    // the host's mount events still reach us but ours never reach the host; a given value is applied to "/"
    // before the rootfs bind and again to the new "/" after pivot_root (unless it is a private one).
    const std::string propagation = spec.linux ? spec.linux->rootfs_propagation : std::string();
    if (propagation.empty()) {
        plan.root_propagation = MS_SLAVE | MS_REC;
    } else {
        plan.root_propagation = parse_propagation(propagation);
        if (plan.root_propagation == 0)
            return fail_msg("linux.rootfsPropagation: unknown propagation \"" + propagation + "\"");
        if (options.no_pivot && (plan.root_propagation & MS_PRIVATE))
            return fail_msg("linux.rootfsPropagation: \"" + propagation + "\" is not safe without pivot_root");
        if (!(plan.root_propagation & MS_PRIVATE)) plan.post_pivot_propagation = plan.root_propagation;
    }
    // pivot_root(2) fails when the rootfs's parent mount is shared; after rslave or rprivate nothing is.
    plan.make_rootfs_parent_private =
        plan.root_propagation != (MS_SLAVE | MS_REC) && plan.root_propagation != (MS_PRIVATE | MS_REC);

    // A new cgroup2 mount made from the initial cgroup namespace re-applies the hierarchy's root options
    // (nsdelegate, memory_recursiveprot, ...) host-wide, to what this mount says (kernel/cgroup/cgroup.c,
    // apply_cgroup_root_flags), and on 6.x kernels waits for an RCU grace period (cgroup_favor_dynmods) each
    // time: ~15 ms of a run. A container without a cgroup namespace of its own would see the same hierarchy
    // through it as husk does, so it gets husk's view bound instead. With a new cgroup namespace the mount is
    // new (it shows the namespace's root, and changes nothing of the host's).
    const std::string cgroup2_bind = has_new_cgroup_namespace(spec) ? std::string() : options.cgroup2_mount;
    for (std::size_t i = 0; i < spec.mounts.size(); ++i) {
        auto prepared = prepare_mount(spec.mounts[i], options.bundle, cgroup2_bind, options.rootless);
        if (!prepared) return fail(prepared.error().context("mounts[" + std::to_string(i) + "]"));
        plan.mounts.push_back(std::move(*prepared));
    }
    plan.setup_dev = !dev_is_bound(plan.mounts);
    if (plan.setup_dev) TRY(prepare_devices(spec, plan));

    if (spec.linux) {
        for (const auto& path : spec.linux->masked_paths) plan.masked_paths.push_back(clean_path(path));
        for (const auto& path : spec.linux->readonly_paths) plan.readonly_paths.push_back(clean_path(path));
    }
    if (!plan.masked_paths.empty()) plan.host_null = open_host_device("/dev/null", S_IFCHR, makedev(1, 3));  // none without root: choose_null
    return plan;
}

}  // namespace husk::mnt
