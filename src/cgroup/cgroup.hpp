// The container's cgroup on the cgroup v2 hierarchy: where it lives, its device allow-list (an eBPF program),
// and the operations on a live cgroup (procs, kill, freeze, removal). cgroup v1 is never written.
#pragma once

#include <linux/bpf.h>
#include <sys/types.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cgroup/limits.hpp"
#include "cgroup/location.hpp"
#include "cgroup/net_filter.hpp"
#include "cgroup/shared_parent.hpp"
#include "husk/error.hpp"
#include "husk/spec.hpp"
#include "husk/unique_fd.hpp"
#include "spec/settings.hpp"

namespace husk::cgroup {

// --cgroup-manager: cgroupfs writes the v2 hierarchy directly; disabled runs the container in the caller's
// cgroup and refuses every linux.resources entry (nothing could enforce it). undelegated is the same for husk
// without root that found no delegated cgroup v2 subtree to use (docs/rootless.md).
enum class Manager { cgroupfs, disabled, undelegated };

// Why a container has no cgroup under `manager` (not cgroupfs), for the error of whatever needs one:
// "the cgroup manager is disabled".
std::string no_cgroup_reason(Manager manager);

// What create_cgroup needs, computed in the parent before anything is created.
struct CgroupPlan {
    Manager manager = Manager::disabled;
    CgroupLocation location;  // mount and path both empty when disabled
    std::vector<bpf_insn> device_program;  // BPF_PROG_TYPE_CGROUP_DEVICE, compiled from linux.resources.devices
    bool has_device_rules = false;         // false: attach nothing (no rules = every device allowed, as runc)
    NetPrograms net;                       // run.husk.net-allow / net-ops; empty: attach nothing
    // linux.resources, planned in prepare (so every error that needs no cgroup comes before one exists) and
    // planned again by create_cgroup against the new cgroup's files (io.bfq.weight or io.weight, swap
    // accounting, hugetlb.*.rsvd.max, unified keys).
    spec::Resources resources;
    bool oom_group = true;                 // annotation run.husk.oom-group
    PidsLimitReading pids_reading = PidsLimitReading::spec_1_3;  // from the config's ociVersion
    std::vector<std::string> controllers;  // what the limits need in every ancestor's cgroup.subtree_control
    // The container's cgroup is below a shared parent whose limits create_cgroup writes (shared_parent.hpp).
    std::optional<SharedParent> shared_parent;

    bool disabled() const noexcept { return manager != Manager::cgroupfs; }
    std::string delegated;  // husk without root: the delegated subtree the cgroup is in (docs/rootless.md)
};

// Validates linux.cgroupsPath and linux.resources, finds the v2 mount and compiles the device program.
// A limit whose controller the v2 hierarchy does not offer is an error naming the field and the controller
// (and, on a hybrid host, that it is bound to cgroup v1); so is a field cgroup v2 cannot honour. `husk` is the
// spec's run.husk.* annotations as create parsed them (run.husk.oom-group).
// `delegated` (husk without root, docs/rootless.md): the subtree delegated to the caller
// (find_own_delegated_subtree); the container's cgroup goes below it, and what needs privileges beyond it (the
// device program, the network policy's programs) is refused.
Result<CgroupPlan> prepare_cgroup(const spec::Spec& spec, const spec::HuskSettings& husk,
                                  std::string_view container_id, Manager manager, std::string_view delegated = {});

// A created cgroup. Owns a directory fd opened O_RDONLY (CLONE_INTO_CGROUP refuses an O_PATH fd).
class Cgroup {
public:
    int dir_fd() const noexcept { return dir_.get(); }
    const CgroupLocation& location() const noexcept { return location_; }  // as stored in state
    // Directories create_cgroup made (relative to the mount, parents first); the leaf is last when created.
    const std::vector<std::string>& created() const noexcept { return created_; }
    // The network policy's maps (counter, events), shared with the monitor; null without a policy.
    const std::shared_ptr<const NetMaps>& net_maps() const noexcept { return net_maps_; }

private:
    friend Result<Cgroup> create_cgroup(const CgroupPlan& plan);
    Cgroup(UniqueFd dir, CgroupLocation location, std::vector<std::string> created,
           std::shared_ptr<const NetMaps> net_maps)
        : dir_(std::move(dir)), location_(std::move(location)), created_(std::move(created)),
          net_maps_(std::move(net_maps)) {}

    UniqueFd dir_;
    CgroupLocation location_;
    std::vector<std::string> created_;
    std::shared_ptr<const NetMaps> net_maps_;
};

// mkdir -p of the planned path under the v2 mount; enables plan.controllers (and, best effort, the usage controllers)
// in cgroup.subtree_control of every ancestor; writes and reads back the shared parent's limits (once the new
// cgroup exists below it, so a parallel remove_cgroup cannot take the parent away in between) and each
// limit; then loads and attaches the
// device program (BPF_CGROUP_DEVICE, BPF_F_ALLOW_MULTI). An existing leaf is reused only when no process
// lives in it (runc refuses too). On failure every directory it made is removed again (controllers enabled
// in ancestors that existed before stay enabled). Must not be called for a disabled plan.
Result<Cgroup> create_cgroup(const CgroupPlan& plan);

// Removes the leaf (and any child cgroups the container made), retrying briefly while exiting processes
// still hold it (EBUSY); then removes ancestors that became empty, but only strictly below husk's own
// "/husk" subtree. A leaf that is already gone is not an error.
Result<void> remove_cgroup(const CgroupLocation& cgroup);
// Rollback after a failed create: removes the leaf and exactly the ancestors create_cgroup made, if empty.
Result<void> remove_cgroup(const Cgroup& cgroup);

// The pids in the cgroup's own cgroup.procs (not its descendants).
Result<std::vector<pid_t>> read_procs(const CgroupLocation& cgroup);

// The pids of the cgroup and all its descendants (what `husk ps` lists).
Result<std::vector<pid_t>> read_all_procs(const CgroupLocation& cgroup);

// Signals every process of the cgroup and its descendants. SIGKILL uses cgroup.kill when the kernel has it;
// otherwise the cgroup is frozen, each process signalled through a pidfd, and thawed again (unless it was
// frozen before), so nothing can fork away in between. A pid is signalled only while /proc/PID/cgroup still
// puts it inside the cgroup's path.
Result<void> kill_all(const CgroupLocation& cgroup, int signal);

// Writes cgroup.freeze and waits until cgroup.events reports the new state. A freeze that does not settle
// within the timeout is undone (best effort) and reported as ETIMEDOUT.
Result<void> set_frozen(const CgroupLocation& cgroup, bool frozen,
                        std::chrono::milliseconds timeout = std::chrono::seconds(5));
// True when husk (or anyone) asked the cgroup itself to be frozen (cgroup.freeze is 1).
Result<bool> is_frozen(const CgroupLocation& cgroup);

// The mount point of the first cgroup2 mount in /proc/self/mountinfo.
Result<std::string> find_v2_mount();

}  // namespace husk::cgroup
