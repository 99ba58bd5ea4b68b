// plan_limits: runtime-spec 1.3.0 linux.resources (config-linux.md "Control groups") → cgroup v2 interface
// files (Documentation/admin-guide/cgroup-v2.rst). Where the spec speaks cgroup v1, the conversions are the
// ones runc uses, so a config means the same under husk as under runc. A field v2 cannot honour is an error
// (fail closed), never silently dropped.
#include "cgroup/limits.hpp"

#include <algorithm>
#include <cmath>

#include "cgroup/unified.hpp"

namespace husk::cgroup {
namespace {

constexpr const char* prefix = "linux.resources.";

std::string quoted(std::string_view text) { return "\"" + std::string(text) + "\""; }

class Writes {
public:
    explicit Writes(const LimitOptions& options) : options_(options) {}
    void add(const std::string& field, const char* controller, std::string file, std::string value) {
        list_.push_back({prefix + field, controller, std::move(file), std::move(value), false});
    }
    void add_verbatim(const std::string& field, std::string controller, std::string file, std::string value) {
        list_.push_back({prefix + field, std::move(controller), std::move(file), std::move(value), true});
    }
    bool has_file(std::string_view file) const { return !options_.has_file || options_.has_file(file); }
    bool has_controller(const std::string& name) const {
        return !options_.has_file || std::find(options_.controllers.begin(), options_.controllers.end(), name) !=
                                         options_.controllers.end();
    }
    bool probing() const { return static_cast<bool>(options_.has_file); }
    const LimitOptions& options() const { return options_; }
    std::vector<LimitWrite> take() { return std::move(list_); }

private:
    const LimitOptions& options_;
    std::vector<LimitWrite> list_;
};

std::unexpected<Error> refuse(const std::string& field, std::string_view why) {
    return fail_msg(prefix + field + ": " + std::string(why));
}

// memory.max and friends take "max" or bytes; the spec's -1 means no limit (runc writes "max" for it).
Result<std::string> bytes_or_max(std::int64_t value, const std::string& field) {
    if (value == -1) return std::string("max");
    if (value < 0) return refuse(field, std::to_string(value) + " is neither -1 (no limit) nor a number of bytes");
    return std::to_string(value);
}

// The spec's swap is memory+swap (the cgroup v1 memsw counter); v2's memory.swap.max is swap alone. Same
// rules as runc's ConvertMemorySwapToCgroupV2Value: -1 = no swap limit; otherwise a memory limit is needed
// and swap - limit is what v2 wants.
Result<std::string> swap_value(std::int64_t swap, std::int64_t limit, const std::string& field) {
    if (swap == -1) return std::string("max");
    if (swap < -1) return refuse(field, std::to_string(swap) + " is neither -1 (no limit) nor a number of bytes");
    if (limit == 0) return refuse(field, "a swap limit needs memory.limit as well (swap counts memory+swap)");
    if (limit == -1) return std::to_string(swap);  // no memory limit: runc takes the number as the swap limit
    if (swap < limit)
        return refuse(field, std::to_string(swap) + " is below memory.limit " + std::to_string(limit) +
                                 " (swap counts memory+swap, so it must be at least the limit)");
    return std::to_string(swap - limit);
}

// pids.max for linux.resources.pids.limit, read as the config's ociVersion says (see PidsLimitReading).
Result<std::string> pids_max(std::int64_t limit, PidsLimitReading reading) {
    if (reading == PidsLimitReading::before_1_3) return limit <= 0 ? std::string("max") : std::to_string(limit);
    if (limit == -1) return std::string("max");
    if (limit < 0)
        return refuse("pids.limit", std::to_string(limit) + " is neither -1 (no limit) nor a number of tasks");
    return std::to_string(limit);
}

Result<void> plan_memory(const spec::MemoryResources& memory, Writes& out) {
    const char* v2_missing = "not available on cgroup v2";
    if (memory.kernel) return refuse("memory.kernel", std::string(v2_missing) + " (kernel memory counts in memory.max)");
    if (memory.kernel_tcp) return refuse("memory.kernelTCP", std::string(v2_missing) + " (tcp memory counts in memory.max)");
    // runc accepts any swappiness on v2 and ignores it; husk refuses what it cannot do.
    if (memory.swappiness) return refuse("memory.swappiness", std::string(v2_missing) + " (there is no per-cgroup swappiness)");
    if (memory.disable_oom_killer.value_or(false))
        return refuse("memory.disableOOMKiller", "cgroup v2 has no switch to disable the OOM killer");
    if (!memory.use_hierarchy.value_or(true))
        return refuse("memory.useHierarchy", "cgroup v2 is always hierarchical; false cannot be honoured");

    // 0 means "not set" for limit, reservation and swap, as in runc (Go's zero value).
    std::int64_t limit = memory.limit.value_or(0);
    // Each TRY before the call, not among its arguments: returning from the middle of a call's arguments, g++
    // does not destroy those already built (a std::string here).
    if (limit != 0) {
        std::string value = TRY(bytes_or_max(limit, "memory.limit"));
        out.add("memory.limit", "memory", "memory.max", std::move(value));
    }

    if (memory.swap.value_or(0) != 0) {
        std::int64_t base = limit;
        if (base == 0 && out.options().mode == LimitMode::update) base = out.options().current_memory_limit.value_or(0);
        std::string value = TRY(swap_value(*memory.swap, base, "memory.swap"));
        if (!out.has_file("memory.swap.max"))
            return refuse("memory.swap", "memory.swap.max does not exist in " + out.options().where +
                                             " (no swap accounting: kernel built without it or booted with "
                                             "swapaccount=0)");
        out.add("memory.swap", "memory", "memory.swap.max", std::move(value));
    } else if (limit != 0 && out.has_file("memory.swap.max")) {
        // husk's choice: a memory limit is a hard ceiling, so without an explicit swap the container gets no
        // swap at all (runc would leave swap unlimited). -1 keeps runc's meaning "memory and swap unlimited".
        // Without swap accounting there is no file, and nothing can swap against the limit: skip it.
        out.add("memory.limit", "memory", "memory.swap.max", limit == -1 ? "max" : "0");
    }

    if (memory.reservation.value_or(0) != 0) {
        std::string value = TRY(bytes_or_max(*memory.reservation, "memory.reservation"));
        out.add("memory.reservation", "memory", "memory.low", std::move(value));
    }

    // The whole container dies together on OOM instead of losing a random process (cgroup-v2.rst,
    // memory.oom.group), unless run.husk.oom-group is "false".
    if (limit > 0 && out.options().oom_group) out.add("memory.limit", "memory", "memory.oom.group", "1");
    return {};
}

// cpu.max is "$QUOTA $PERIOD" with "max" for no quota. A quota alone keeps the period at create at the
// kernel default 100000 (as runc); on update the kernel keeps the current period when only a quota is given,
// and a period alone keeps the current quota.
Result<void> plan_cpu_max(const spec::CpuResources& cpu, Writes& out) {
    bool has_quota = cpu.quota.value_or(0) != 0;
    bool has_period = cpu.period.value_or(0) != 0;
    if (!has_quota && !has_period) return {};
    std::string field = has_quota ? "cpu.quota" : "cpu.period";
    std::string quota = has_quota && *cpu.quota > 0 ? std::to_string(*cpu.quota) : "max";
    bool update = out.options().mode == LimitMode::update;
    if (update && !has_quota) quota = out.options().current_cpu_quota.empty() ? "max" : out.options().current_cpu_quota;
    std::string value = quota;
    if (has_period) value += " " + std::to_string(*cpu.period);
    else if (!update) value += " 100000";
    out.add(field, "cpu", "cpu.max", value);
    return {};
}

Result<void> plan_cpu(const spec::CpuResources& cpu, Writes& out) {
    if (cpu.realtime_runtime)
        return refuse("cpu.realtimeRuntime", "not available on cgroup v2 (no realtime group scheduling)");
    if (cpu.realtime_period)
        return refuse("cpu.realtimePeriod", "not available on cgroup v2 (no realtime group scheduling)");
    if (cpu.burst && *cpu.burst < 0) return refuse("cpu.burst", "must not be negative");
    if (cpu.burst && cpu.quota && *cpu.quota > 0 && *cpu.burst > *cpu.quota)
        return refuse("cpu.burst", std::to_string(*cpu.burst) + " is larger than cpu.quota " +
                                       std::to_string(*cpu.quota) + " (config-linux.md: burst MUST be no larger)");

    // The kernel refuses cpu.weight while cpu.idle is 1: leaving idle goes first, entering it last.
    bool idle_first = cpu.idle && *cpu.idle == 0;
    if (idle_first) out.add("cpu.idle", "cpu", "cpu.idle", "0");
    if (cpu.shares.value_or(0) != 0)
        out.add("cpu.shares", "cpu", "cpu.weight", std::to_string(cpu_shares_to_weight(*cpu.shares)));
    TRY(plan_cpu_max(cpu, out));
    if (cpu.burst) out.add("cpu.burst", "cpu", "cpu.max.burst", std::to_string(*cpu.burst));
    if (cpu.idle && !idle_first) out.add("cpu.idle", "cpu", "cpu.idle", std::to_string(*cpu.idle));
    if (!cpu.cpus.empty()) out.add("cpu.cpus", "cpuset", "cpuset.cpus", cpu.cpus);
    if (!cpu.mems.empty()) out.add("cpu.mems", "cpuset", "cpuset.mems", cpu.mems);
    return {};
}

Result<std::string> device(std::int64_t major, std::int64_t minor, const std::string& field) {
    if (major < 0 || minor < 0 || major > 0xfff || minor > 0xfffff)
        return refuse(field, "device " + std::to_string(major) + ":" + std::to_string(minor) + " is out of range");
    return std::to_string(major) + ":" + std::to_string(minor);
}

// BFQ takes the v1 weight range (1..1000) as it is; io.weight (1..10000) needs runc's linear conversion,
// defined for the v1 range 10..1000.
Result<std::string> io_weight_value(std::uint16_t weight, bool bfq, const std::string& field) {
    if (bfq) return std::to_string(weight);
    if (weight < 10 || weight > 1000) return refuse(field, std::to_string(weight) + " is outside the range 10-1000");
    return std::to_string(blkio_weight_to_io_weight(weight));
}

Result<void> plan_block_io(const spec::BlockIoResources& io, Writes& out) {
    if (io.leaf_weight) return refuse("blockIO.leafWeight", "not available on cgroup v2 (there are no leaf weights)");
    bool bfq = out.has_file("io.bfq.weight");
    const char* weight_file = bfq ? "io.bfq.weight" : "io.weight";
    if (io.weight.value_or(0) != 0) {
        std::string value = TRY(io_weight_value(*io.weight, bfq, "blockIO.weight"));
        out.add("blockIO.weight", "io", weight_file, std::move(value));
    }
    for (std::size_t i = 0; i < io.weight_device.size(); ++i) {
        const spec::WeightDevice& entry = io.weight_device[i];
        std::string field = "blockIO.weightDevice[" + std::to_string(i) + "]";
        if (entry.leaf_weight) return refuse(field + ".leafWeight", "not available on cgroup v2 (there are no leaf weights)");
        if (!entry.weight) return refuse(field, "has no weight");
        std::string dev = TRY(device(entry.major, entry.minor, field));
        out.add(field, "io", weight_file, dev + " " + TRY(io_weight_value(*entry.weight, bfq, field)));
    }
    struct Throttle {
        const std::vector<spec::ThrottleDevice>* list;
        const char* name;
        const char* key;
    };
    for (const Throttle& t : {Throttle{&io.throttle_read_bps_device, "throttleReadBpsDevice", "rbps"},
                              Throttle{&io.throttle_write_bps_device, "throttleWriteBpsDevice", "wbps"},
                              Throttle{&io.throttle_read_iops_device, "throttleReadIOPSDevice", "riops"},
                              Throttle{&io.throttle_write_iops_device, "throttleWriteIOPSDevice", "wiops"}}) {
        for (std::size_t i = 0; i < t.list->size(); ++i) {
            const spec::ThrottleDevice& entry = (*t.list)[i];
            std::string field = std::string("blockIO.") + t.name + "[" + std::to_string(i) + "]";
            std::string dev = TRY(device(entry.major, entry.minor, field));
            out.add(field, "io", "io.max", dev + " " + t.key + "=" + std::to_string(entry.rate));
        }
    }
    return {};
}

// "2MB": digits and a unit, as the kernel names hugetlb.<size>.* files (config-linux.md: <size><unit-prefix>B).
bool valid_page_size(const std::string& size) {
    if (size.size() < 3 || size[0] < '1' || size[0] > '9') return false;
    std::string unit = size.substr(size.size() - 2);
    if (unit != "KB" && unit != "MB" && unit != "GB" && unit != "TB") return false;
    return std::all_of(size.begin(), size.end() - 2, [](char c) { return c >= '0' && c <= '9'; });
}

Result<void> plan_hugepages(const std::vector<spec::HugepageLimit>& limits, Writes& out) {
    for (std::size_t i = 0; i < limits.size(); ++i) {
        const spec::HugepageLimit& limit = limits[i];
        std::string field = "hugepageLimits[" + std::to_string(i) + "]";
        if (!valid_page_size(limit.page_size))
            return refuse(field + ".pageSize", quoted(limit.page_size) + " is not a page size like \"2MB\"");
        std::string file = "hugetlb." + limit.page_size + ".max";
        if (!out.has_file(file))
            return refuse(field + ".pageSize", "the kernel offers no " + limit.page_size + " huge pages (no " + file +
                                                   " in " + out.options().where + ")");
        out.add(field, "hugetlb", file, std::to_string(limit.limit));
        // Reservations (mmap of huge pages) are limited separately since Linux 5.7; runc sets both, so the
        // limit holds whether a page is reserved or faulted in.
        std::string rsvd = "hugetlb." + limit.page_size + ".rsvd.max";
        if (out.probing() && out.has_file(rsvd)) out.add(field, "hugetlb", rsvd, std::to_string(limit.limit));
    }
    return {};
}

// unified keys are file names in the container's cgroup, written verbatim (config-linux.md "Unified"): only
// files of a controller enabled for that cgroup, and the two core limits (see unified.hpp).
Result<void> plan_unified(const std::map<std::string, std::string>& unified, Writes& out) {
    for (const auto& [key, value] : unified) {
        std::string controller = TRY(unified_key_controller(key));
        std::string field = "unified[" + quoted(key) + "]";
        if (!out.has_file(key)) return refuse(field, "not an interface file of cgroup " + out.options().where);
        if (!controller.empty() && !out.has_controller(controller))
            return refuse(field, "the " + controller + " controller is not enabled for cgroup " + out.options().where +
                                     " (not in its cgroup.controllers)");
        out.add_verbatim(field, controller, key, value);
    }
    return {};
}

}  // namespace

// runc ≥ 1.3.2 and 1.4 (opencontainers/cgroups ConvertCPUSharesToCgroupV2Value, runc PR #4785) and crun
// ≥ 1.23 map shares to weight on a log scale with a quadratic exponent that hits the three fixed points
// 2 → 1, 1024 → 100 (both defaults) and 262144 → 10000: exponent = (l² + 125·l) / 612 − 7/34 with
// l = log2(shares), weight = ⌈10^exponent⌉. The older linear 1 + (shares−2)·9999/262142 gave 1024 → 39.
std::uint64_t cpu_shares_to_weight(std::uint64_t shares) {
    if (shares == 0) return 0;
    if (shares <= 2) return 1;
    if (shares >= 262144) return 10000;
    double l = std::log2(static_cast<double>(shares));
    double exponent = (l * l + 125 * l) / 612.0 - 7.0 / 34.0;
    return static_cast<std::uint64_t>(std::ceil(std::pow(10.0, exponent)));
}

PidsLimitReading pids_limit_reading(std::string_view oci_version) {
    if (!oci_version.starts_with("1.")) return PidsLimitReading::spec_1_3;
    std::string_view minor = oci_version.substr(2, oci_version.find_first_not_of("0123456789", 2) - 2);
    bool before = minor.size() == 1 && minor[0] >= '0' && minor[0] <= '2';
    return before ? PidsLimitReading::before_1_3 : PidsLimitReading::spec_1_3;
}

std::uint64_t blkio_weight_to_io_weight(std::uint64_t weight) {
    if (weight == 0) return 0;
    return 1 + (weight - 10) * 9999 / 990;
}

Result<std::vector<LimitWrite>> plan_limits(const spec::Resources& resources, const LimitOptions& options) {
    Writes out(options);
    if (resources.memory) TRY(plan_memory(*resources.memory, out));
    if (resources.cpu) TRY(plan_cpu(*resources.cpu, out));
    if (resources.pids_limit) {
        std::string value = TRY(pids_max(*resources.pids_limit, options.pids_reading));
        out.add("pids.limit", "pids", "pids.max", std::move(value));
    }
    if (resources.block_io) TRY(plan_block_io(*resources.block_io, out));
    TRY(plan_hugepages(resources.hugepage_limits, out));
    if (resources.has_network)
        return refuse("network", "net_cls and net_prio are cgroup v1 controllers; husk does not write cgroup v1");
    if (resources.has_rdma) return refuse("rdma", "rdma limits are not supported by this husk build");
    TRY(plan_unified(resources.unified, out));
    return out.take();
}

std::vector<std::string> needed_controllers(const std::vector<LimitWrite>& writes) {
    std::vector<std::string> out;
    for (const LimitWrite& w : writes)
        if (!w.controller.empty() && std::find(out.begin(), out.end(), w.controller) == out.end())
            out.push_back(w.controller);
    return out;
}

}  // namespace husk::cgroup
