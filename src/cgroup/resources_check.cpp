#include "cgroup/resources_check.hpp"

#include <algorithm>
#include <cerrno>
#include <sstream>

#include "base/fs.hpp"
#include "cgroup/hierarchy.hpp"
#include "cgroup/unified.hpp"

namespace husk::cgroup {
namespace {

constexpr const char* prefix = "linux.resources.";

// Collects requests in the order config-linux.md lists the fields.
class Requests {
public:
    void add(const std::string& field, const char* controller) { list_.push_back({prefix + field, controller, false}); }
    template <typename T>
    void add_if(const std::optional<T>& value, const std::string& field, const char* controller) {
        if (value) add(field, controller);
    }
    void add_v1_only(const std::string& field) { list_.push_back({prefix + field, "", true}); }
    std::vector<ResourceRequest> take() { return std::move(list_); }

private:
    std::vector<ResourceRequest> list_;
};

void list_memory(const spec::MemoryResources& memory, Requests& out) {
    out.add_if(memory.limit, "memory.limit", "memory");
    out.add_if(memory.reservation, "memory.reservation", "memory");
    out.add_if(memory.swap, "memory.swap", "memory");
    out.add_if(memory.kernel, "memory.kernel", "memory");
    out.add_if(memory.kernel_tcp, "memory.kernelTCP", "memory");
    out.add_if(memory.swappiness, "memory.swappiness", "memory");
    // false asks for the default; true cannot be done on v2 (there is no switch for the OOM killer).
    if (memory.disable_oom_killer.value_or(false)) out.add("memory.disableOOMKiller", "memory");
    // v2 is always hierarchical: true is the default, false cannot be honoured.
    if (!memory.use_hierarchy.value_or(true)) out.add("memory.useHierarchy", "memory");
    // checkBeforeUpdate only changes how `update` behaves: nothing to apply at create.
}

void list_cpu(const spec::CpuResources& cpu, Requests& out) {
    out.add_if(cpu.shares, "cpu.shares", "cpu");
    out.add_if(cpu.quota, "cpu.quota", "cpu");
    out.add_if(cpu.burst, "cpu.burst", "cpu");
    out.add_if(cpu.period, "cpu.period", "cpu");
    out.add_if(cpu.realtime_runtime, "cpu.realtimeRuntime", "cpu");
    out.add_if(cpu.realtime_period, "cpu.realtimePeriod", "cpu");
    if (!cpu.cpus.empty()) out.add("cpu.cpus", "cpuset");
    if (!cpu.mems.empty()) out.add("cpu.mems", "cpuset");
    out.add_if(cpu.idle, "cpu.idle", "cpu");
}

void list_block_io(const spec::BlockIoResources& io, Requests& out) {
    out.add_if(io.weight, "blockIO.weight", "io");
    out.add_if(io.leaf_weight, "blockIO.leafWeight", "io");
    if (!io.weight_device.empty()) out.add("blockIO.weightDevice", "io");
    if (!io.throttle_read_bps_device.empty()) out.add("blockIO.throttleReadBpsDevice", "io");
    if (!io.throttle_write_bps_device.empty()) out.add("blockIO.throttleWriteBpsDevice", "io");
    if (!io.throttle_read_iops_device.empty()) out.add("blockIO.throttleReadIOPSDevice", "io");
    if (!io.throttle_write_iops_device.empty()) out.add("blockIO.throttleWriteIOPSDevice", "io");
}

// linux.resources.unified keys are v2 interface files: "<controller>.<knob>", or one of the two core limits.
Result<void> list_unified(const std::map<std::string, std::string>& unified, Requests& out) {
    for (const auto& [key, value] : unified) {
        std::string controller = TRY(unified_key_controller(key));
        out.add("unified[\"" + key + "\"]", controller.c_str());
    }
    return {};
}

// /proc/cgroups: "name hierarchy num_cgroups enabled"; hierarchy 0 means v2 (or unmounted).
std::vector<std::string> read_v1_bound() {
    std::vector<std::string> bound;
    auto text = read_file("/proc/cgroups");
    if (!text) return bound;  // the file is optional; without it we cannot tell, and say less
    std::istringstream in(*text);
    for (std::string line; std::getline(in, line);) {
        std::vector<std::string> f = split_words(line);
        if (f.size() < 4 || f[0].starts_with('#') || f[1] == "0" || f[3] != "1") continue;
        if (f[0] == "blkio") bound.push_back("io");  // the v1 name of io
        else bound.push_back(f[0]);
    }
    return bound;
}

}  // namespace

Result<std::vector<ResourceRequest>> list_resource_requests(const spec::Resources& resources) {
    Requests out;
    if (resources.memory) list_memory(*resources.memory, out);
    if (resources.cpu) list_cpu(*resources.cpu, out);
    out.add_if(resources.pids_limit, "pids.limit", "pids");
    if (resources.block_io) list_block_io(*resources.block_io, out);
    for (std::size_t i = 0; i < resources.hugepage_limits.size(); ++i)
        out.add("hugepageLimits[" + std::to_string(i) + "]", "hugetlb");
    if (resources.has_network) out.add_v1_only("network");
    if (resources.has_rdma) out.add("rdma", "rdma");
    TRY(list_unified(resources.unified, out));
    return out.take();
}

Result<ControllerFacts> read_controller_facts(const std::string& mount) {
    ControllerFacts facts;
    facts.mount = mount;
    facts.consulted = mount + "/cgroup.controllers";
    facts.available = split_words(TRY(read_file(facts.consulted)));
    facts.bound_to_v1 = read_v1_bound();
    return facts;
}

Result<void> check_resource_requests(const std::vector<ResourceRequest>& requests, const ControllerFacts& facts) {
    for (const ResourceRequest& r : requests) {
        if (r.v1_only)
            return fail_msg(r.field + ": net_cls and net_prio are cgroup v1 controllers; husk does not write cgroup v1");
        if (r.controller.empty() || list_contains(facts.available, r.controller)) continue;
        bool v1 = list_contains(facts.bound_to_v1, r.controller);
        std::string why = v1 ? "host is hybrid: " + r.controller + " is bound to cgroup v1" : "not listed in " + facts.consulted;
        return fail_msg(r.field + ": the " + r.controller + " controller is not available in the cgroup v2 " +
                        "hierarchy at " + facts.mount + " (" + why + ")" + (v1 ? "; husk does not write cgroup v1" : ""));
    }
    return {};
}

Result<void> check_no_resource_requests(const std::vector<ResourceRequest>& requests) {
    if (requests.empty()) return {};
    return fail_msg(requests.front().field + ": resource limits need a cgroup, but the cgroup manager is disabled");
}

}  // namespace husk::cgroup
