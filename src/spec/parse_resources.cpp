// config-linux.md "Control groups" → linux.resources: device rules, memory, cpu, pids, blockIO, hugetlb,
// unified. network and rdma are only noted (the cgroup module refuses them: v1-only or not implemented).
#include "spec/parse_internal.hpp"

#include <limits>

namespace husk::spec::detail {
namespace {

using json::Node;
using json::Presence;
using json::read_array;
using json::read_field;

// "Allowed Device List": major/minor absent means "all" (a wildcard), so they stay std::nullopt.
Result<void> parse_device_rule(const Node& node, DeviceRule& out) {
    TRY(node.expect_object());
    // "allow" is REQUIRED by the spec; runc (Go) reads an absent one as false, i.e. deny, which is safe.
    TRY(read_field(node, "allow", out.allow));
    TRY(read_field(node, "type", out.type));
    TRY(read_field(node, "major", out.major));
    TRY(read_field(node, "minor", out.minor));
    TRY(read_field(node, "access", out.access));
    return {};
}

Result<void> parse_memory(const Node& node, MemoryResources& out) {
    TRY(node.expect_object());
    TRY(read_field(node, "limit", out.limit));
    TRY(read_field(node, "reservation", out.reservation));
    TRY(read_field(node, "swap", out.swap));
    TRY(read_field(node, "kernel", out.kernel));
    TRY(read_field(node, "kernelTCP", out.kernel_tcp));
    TRY(read_field(node, "swappiness", out.swappiness));
    TRY(read_field(node, "disableOOMKiller", out.disable_oom_killer));
    TRY(read_field(node, "useHierarchy", out.use_hierarchy));
    TRY(read_field(node, "checkBeforeUpdate", out.check_before_update));
    return {};
}

Result<void> parse_cpu(const Node& node, CpuResources& out) {
    TRY(node.expect_object());
    TRY(read_field(node, "shares", out.shares));
    TRY(read_field(node, "quota", out.quota));
    // burst is a uint64 in the spec; Spec keeps it signed, so values above INT64_MAX are refused.
    if (Node burst = node.field("burst"); !burst.absent()) {
        std::uint64_t value = TRY(burst.as_uint64());
        if (value > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
            return fail(burst.error(std::to_string(value) + " is out of range for a 64-bit integer"));
        out.burst = static_cast<std::int64_t>(value);
    }
    TRY(read_field(node, "period", out.period));
    TRY(read_field(node, "realtimeRuntime", out.realtime_runtime));
    TRY(read_field(node, "realtimePeriod", out.realtime_period));
    TRY(read_field(node, "cpus", out.cpus));
    TRY(read_field(node, "mems", out.mems));
    TRY(read_field(node, "idle", out.idle));
    return {};
}

Result<void> parse_weight_device(const Node& node, WeightDevice& out) {
    TRY(node.expect_object());
    TRY(read_field(node, "major", out.major, Presence::required));
    TRY(read_field(node, "minor", out.minor, Presence::required));
    TRY(read_field(node, "weight", out.weight));
    TRY(read_field(node, "leafWeight", out.leaf_weight));
    return {};
}

Result<void> parse_throttle_device(const Node& node, ThrottleDevice& out) {
    TRY(node.expect_object());
    TRY(read_field(node, "major", out.major, Presence::required));
    TRY(read_field(node, "minor", out.minor, Presence::required));
    TRY(read_field(node, "rate", out.rate, Presence::required));
    return {};
}

Result<void> parse_block_io(const Node& node, BlockIoResources& out) {
    TRY(node.expect_object());
    TRY(read_field(node, "weight", out.weight));
    TRY(read_field(node, "leafWeight", out.leaf_weight));
    TRY(read_array(node, "weightDevice", out.weight_device, parse_weight_device));
    TRY(read_array(node, "throttleReadBpsDevice", out.throttle_read_bps_device, parse_throttle_device));
    TRY(read_array(node, "throttleWriteBpsDevice", out.throttle_write_bps_device, parse_throttle_device));
    TRY(read_array(node, "throttleReadIOPSDevice", out.throttle_read_iops_device, parse_throttle_device));
    TRY(read_array(node, "throttleWriteIOPSDevice", out.throttle_write_iops_device, parse_throttle_device));
    return {};
}

Result<void> parse_hugepage_limit(const Node& node, HugepageLimit& out) {
    TRY(node.expect_object());
    TRY(read_field(node, "pageSize", out.page_size, Presence::required));
    TRY(read_field(node, "limit", out.limit, Presence::required));
    return {};
}

}  // namespace

Result<void> parse_resources(const Node& node, Resources& out) {
    TRY(node.expect_object());
    TRY(read_array(node, "devices", out.devices, parse_device_rule));
    if (Node memory = node.field("memory"); !memory.absent()) TRY(parse_memory(memory, out.memory.emplace()));
    if (Node cpu = node.field("cpu"); !cpu.absent()) TRY(parse_cpu(cpu, out.cpu.emplace()));
    if (Node pids = node.field("pids"); !pids.absent()) {
        TRY(pids.expect_object());
        TRY(read_field(pids, "limit", out.pids_limit));
    }
    if (Node block_io = node.field("blockIO"); !block_io.absent())
        TRY(parse_block_io(block_io, out.block_io.emplace()));
    TRY(read_array(node, "hugepageLimits", out.hugepage_limits, parse_hugepage_limit));
    TRY(read_field(node, "unified", out.unified));
    if (Node network = node.field("network"); !network.absent()) {
        TRY(network.expect_object());
        out.has_network = network.has_content();
    }
    if (Node rdma = node.field("rdma"); !rdma.absent()) {
        TRY(rdma.expect_object());
        out.has_rdma = rdma.has_content();
    }
    return {};
}

}  // namespace husk::spec::detail
