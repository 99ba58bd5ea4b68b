#include "shim/metrics.hpp"

#include "cgroup/stats.hpp"

namespace husk::shim {
namespace {

void fill_memory(ttrpc::MemoryStat& memory, const std::vector<std::pair<std::string, std::uint64_t>>& raw) {
    struct Field {
        const char* name;
        std::uint64_t ttrpc::MemoryStat::*member;
    };
    static constexpr Field fields[] = {
        {"anon", &ttrpc::MemoryStat::anon}, {"file", &ttrpc::MemoryStat::file},
        {"kernel_stack", &ttrpc::MemoryStat::kernel_stack}, {"slab", &ttrpc::MemoryStat::slab},
        {"sock", &ttrpc::MemoryStat::sock}, {"shmem", &ttrpc::MemoryStat::shmem},
        {"file_mapped", &ttrpc::MemoryStat::file_mapped}, {"file_dirty", &ttrpc::MemoryStat::file_dirty},
        {"file_writeback", &ttrpc::MemoryStat::file_writeback}, {"anon_thp", &ttrpc::MemoryStat::anon_thp},
        {"inactive_anon", &ttrpc::MemoryStat::inactive_anon}, {"active_anon", &ttrpc::MemoryStat::active_anon},
        {"inactive_file", &ttrpc::MemoryStat::inactive_file}, {"active_file", &ttrpc::MemoryStat::active_file},
        {"unevictable", &ttrpc::MemoryStat::unevictable}, {"slab_reclaimable", &ttrpc::MemoryStat::slab_reclaimable},
        {"slab_unreclaimable", &ttrpc::MemoryStat::slab_unreclaimable}, {"pgfault", &ttrpc::MemoryStat::pgfault},
        {"pgmajfault", &ttrpc::MemoryStat::pgmajfault}, {"workingset_refault", &ttrpc::MemoryStat::workingset_refault},
        {"workingset_activate", &ttrpc::MemoryStat::workingset_activate},
        {"workingset_nodereclaim", &ttrpc::MemoryStat::workingset_nodereclaim}, {"pgrefill", &ttrpc::MemoryStat::pgrefill},
        {"pgscan", &ttrpc::MemoryStat::pgscan}, {"pgsteal", &ttrpc::MemoryStat::pgsteal},
        {"pgactivate", &ttrpc::MemoryStat::pgactivate}, {"pgdeactivate", &ttrpc::MemoryStat::pgdeactivate},
        {"pglazyfree", &ttrpc::MemoryStat::pglazyfree}, {"pglazyfreed", &ttrpc::MemoryStat::pglazyfreed},
        {"thp_fault_alloc", &ttrpc::MemoryStat::thp_fault_alloc}, {"thp_collapse_alloc", &ttrpc::MemoryStat::thp_collapse_alloc},
    };
    for (const Field& field : fields) memory.*field.member = cgroup::keyed_value(raw, field.name);
}

}  // namespace

Result<ttrpc::Metrics> read_metrics(int cgroup_dir, const std::string& where) {
    cgroup::Stats stats = TRY(cgroup::read_stats(cgroup_dir, where));
    ttrpc::Metrics metrics;
    metrics.pids = {stats.pids.current, stats.pids.limit};
    metrics.cpu = {stats.cpu.total_ns / 1000, stats.cpu.user_ns / 1000, stats.cpu.kernel_ns / 1000,
                   stats.cpu.periods, stats.cpu.throttled_periods, stats.cpu.throttled_ns / 1000};
    fill_memory(metrics.memory, stats.memory.raw);
    metrics.memory.usage = stats.memory.usage.usage;
    // "max" is the largest uint64 (cgroup::unlimited), as containerd's cgroups package reports it.
    metrics.memory.usage_limit = stats.memory.usage.limit;
    if (auto swap = TRY(cgroup::read_single_counter(cgroup_dir, "memory.swap.current", where))) metrics.memory.swap_usage = *swap;
    if (auto swap = TRY(cgroup::read_single_counter(cgroup_dir, "memory.swap.max", where))) metrics.memory.swap_limit = *swap;
    if (auto events = TRY(cgroup::read_keyed_counters(cgroup_dir, "memory.events", where))) {
        metrics.memory_events = {cgroup::keyed_value(*events, "low"), cgroup::keyed_value(*events, "high"),
                                 cgroup::keyed_value(*events, "max"), cgroup::keyed_value(*events, "oom"),
                                 cgroup::keyed_value(*events, "oom_kill")};
    }
    // io.stat: husk's reading splits each device into read and write entries; containerd wants one per device.
    for (const auto* table : {&stats.blkio.service_bytes, &stats.blkio.serviced}) {
        for (const auto& entry : *table) {
            ttrpc::IOEntry* device = nullptr;
            for (auto& known : metrics.io.usage)
                if (known.major == entry.major && known.minor == entry.minor) device = &known;
            if (!device) device = &metrics.io.usage.emplace_back(ttrpc::IOEntry{entry.major, entry.minor, 0, 0, 0, 0});
            bool read = entry.op == "Read";
            if (table == &stats.blkio.service_bytes) (read ? device->rbytes : device->wbytes) = entry.value;
            else (read ? device->rios : device->wios) = entry.value;
        }
    }
    for (const auto& hugetlb : stats.hugetlb) metrics.hugetlb.push_back({hugetlb.usage, 0, hugetlb.page_size});
    return metrics;
}

}  // namespace husk::shim
