// The memory controller (cgroup-v2.rst "Memory"): linux.resources.memory → memory.max, memory.swap.max,
// memory.low and memory.oom.group; page counters read back in whole pages; runc's memory stats.
#include "cgroup/controller.hpp"

#include "cgroup/readback_format.hpp"

namespace husk::cgroup {
namespace {

void list_memory(const spec::MemoryResources& memory, Requests& out) {
    out.add_if(memory.limit, "memory.limit", "memory");
    out.add_if(memory.reservation, "memory.reservation", "memory");
    out.add_if(memory.swap, "memory.swap", "memory");
    // 0 is unset, as runc reads it: Docker sends "kernel": 0 (and "kernelTCP": 0) with every update.
    if (memory.kernel.value_or(0) != 0) out.add("memory.kernel", "memory");
    if (memory.kernel_tcp.value_or(0) != 0) out.add("memory.kernelTCP", "memory");
    out.add_if(memory.swappiness, "memory.swappiness", "memory");
    // false asks for the default; true cannot be done on v2 (there is no switch for the OOM killer).
    if (memory.disable_oom_killer.value_or(false)) out.add("memory.disableOOMKiller", "memory");
    // v2 is always hierarchical: true is the default, false cannot be honoured.
    if (!memory.use_hierarchy.value_or(true)) out.add("memory.useHierarchy", "memory");
    // checkBeforeUpdate only changes how `update` behaves: nothing to apply at create.
}

void list(const spec::Resources& resources, Requests& out) {
    if (resources.memory) list_memory(*resources.memory, out);
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

Result<void> plan_memory(const spec::MemoryResources& memory, Writes& out) {
    const char* v2_missing = "not available on cgroup v2";
    if (memory.kernel.value_or(0) != 0)
        return refuse("memory.kernel", std::string(v2_missing) + " (kernel memory counts in memory.max)");
    if (memory.kernel_tcp.value_or(0) != 0)
        return refuse("memory.kernelTCP", std::string(v2_missing) + " (tcp memory counts in memory.max)");
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

Result<void> plan(const spec::Resources& resources, Writes& out) {
    if (resources.memory) TRY(plan_memory(*resources.memory, out));
    return {};
}

std::optional<Readback> compare(std::string_view file, std::string_view written, std::string_view read,
                                std::size_t page_size) {
    if (one_of(file, {"memory.max", "memory.low", "memory.high", "memory.min", "memory.swap.max", "memory.swap.high",
                      "memory.zswap.max"}))
        return compare_page_counter(written, read, page_size, page_size);
    if (file == "memory.oom.group") return compare_number_or_max(written, read);
    return std::nullopt;
}

std::uint64_t saturating_add(std::uint64_t a, std::uint64_t b) { return a > unlimited - b ? unlimited : a + b; }

Result<void> read_memory(int dir_fd, const std::string& where, MemoryStats& out) {
    auto stat = TRY(read_keyed_counters(dir_fd, "memory.stat", where));
    if (!stat) return {};  // no memory controller: runc leaves everything at zero
    out.raw = std::move(*stat);
    out.cache = keyed_value(out.raw, "file");
    out.usage.usage = TRY(read_single_counter(dir_fd, "memory.current", where)).value_or(0);
    out.usage.limit = TRY(read_single_counter(dir_fd, "memory.max", where)).value_or(0);
    out.usage.max = TRY(read_single_counter(dir_fd, "memory.peak", where)).value_or(0);  // kernel >= 5.19
    if (auto events = TRY(read_keyed_counters(dir_fd, "memory.events", where)))
        out.usage.failcnt = keyed_value(*events, "max");
    // Without swap accounting these files are missing and swap stays zero, as in runc.
    auto swap_usage = TRY(read_single_counter(dir_fd, "memory.swap.current", where));
    if (!swap_usage) return {};
    auto swap_limit = TRY(read_single_counter(dir_fd, "memory.swap.max", where)).value_or(0);
    out.swap.usage = saturating_add(*swap_usage, out.usage.usage);
    out.swap.limit = swap_limit == unlimited ? unlimited : saturating_add(swap_limit, out.usage.limit);
    return {};
}

Result<void> read_counters(int dir_fd, const std::string& where, Stats& stats) {
    return read_memory(dir_fd, where, stats.memory);
}

}  // namespace

extern const Controller memory_controller{"memory", list, plan, compare, read_counters};

}  // namespace husk::cgroup
