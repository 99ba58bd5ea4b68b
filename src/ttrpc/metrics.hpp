// io.containerd.cgroups.v2.Metrics (cgroups 1.0.4, v2/stats/metrics.proto): what a shim's Stats returns for a
// cgroup v2 container, as plain structs named after the .proto's fields. RdmaStat (field 5) is left out.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ttrpc/types.hpp"

namespace husk::ttrpc {

struct PidsStat {
    std::uint64_t current = 0, limit = 0;
};
struct CPUStat {
    std::uint64_t usage_usec = 0, user_usec = 0, system_usec = 0, nr_periods = 0, nr_throttled = 0, throttled_usec = 0;
};
struct MemoryStat {  // fields 1 to 35 in this order
    std::uint64_t anon = 0, file = 0, kernel_stack = 0, slab = 0, sock = 0, shmem = 0, file_mapped = 0,
                  file_dirty = 0, file_writeback = 0, anon_thp = 0, inactive_anon = 0, active_anon = 0,
                  inactive_file = 0, active_file = 0, unevictable = 0, slab_reclaimable = 0, slab_unreclaimable = 0,
                  pgfault = 0, pgmajfault = 0, workingset_refault = 0, workingset_activate = 0,
                  workingset_nodereclaim = 0, pgrefill = 0, pgscan = 0, pgsteal = 0, pgactivate = 0,
                  pgdeactivate = 0, pglazyfree = 0, pglazyfreed = 0, thp_fault_alloc = 0, thp_collapse_alloc = 0,
                  usage = 0, usage_limit = 0, swap_usage = 0, swap_limit = 0;
};
struct MemoryEvents {
    std::uint64_t low = 0, high = 0, max = 0, oom = 0, oom_kill = 0;
};
struct IOEntry {
    std::uint64_t major = 0, minor = 0, rbytes = 0, wbytes = 0, rios = 0, wios = 0;
};
struct IOStat {
    std::vector<IOEntry> usage;
};
struct HugeTlbStat {
    std::uint64_t current = 0, max = 0;
    std::string pagesize;
};

// pids=1, cpu=2, memory=4, io=6, hugetlb=7, memory_events=8. Every sub-message is written, as containerd's
// cgroups v2 Stat fills every one of them.
struct Metrics {
    PidsStat pids;
    CPUStat cpu;
    MemoryStat memory;
    IOStat io;
    std::vector<HugeTlbStat> hugetlb;
    MemoryEvents memory_events;
};

// The Metrics as an Any of type URL "io.containerd.cgroups.v2.Metrics".
Any encode_metrics(const Metrics& metrics);

}  // namespace husk::ttrpc
