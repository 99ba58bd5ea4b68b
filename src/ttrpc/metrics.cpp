#include "ttrpc/metrics.hpp"

#include <initializer_list>

#include "ttrpc/protobuf.hpp"

namespace husk::ttrpc {
namespace {

// A message of uint64 fields numbered 1, 2, 3, ... in the order given.
template <typename T>
std::string encode_counters(const T& message, std::initializer_list<std::uint64_t T::*> fields) {
    ProtoWriter out;
    int number = 1;
    for (auto member : fields) out.uint(number++, message.*member);
    return out.take();
}

std::string encode(const MemoryStat& m) {
    using M = MemoryStat;
    return encode_counters(m, {&M::anon, &M::file, &M::kernel_stack, &M::slab, &M::sock, &M::shmem, &M::file_mapped,
                               &M::file_dirty, &M::file_writeback, &M::anon_thp, &M::inactive_anon, &M::active_anon,
                               &M::inactive_file, &M::active_file, &M::unevictable, &M::slab_reclaimable,
                               &M::slab_unreclaimable, &M::pgfault, &M::pgmajfault, &M::workingset_refault,
                               &M::workingset_activate, &M::workingset_nodereclaim, &M::pgrefill, &M::pgscan,
                               &M::pgsteal, &M::pgactivate, &M::pgdeactivate, &M::pglazyfree, &M::pglazyfreed,
                               &M::thp_fault_alloc, &M::thp_collapse_alloc, &M::usage, &M::usage_limit,
                               &M::swap_usage, &M::swap_limit});
}

std::string encode(const IOStat& io) {
    ProtoWriter out;
    for (const auto& entry : io.usage) {
        using E = IOEntry;
        out.message(1, encode_counters(entry, {&E::major, &E::minor, &E::rbytes, &E::wbytes, &E::rios, &E::wios}));
    }
    return out.take();
}

std::string encode(const HugeTlbStat& hugetlb) {
    ProtoWriter out;
    out.uint(1, hugetlb.current);
    out.uint(2, hugetlb.max);
    out.string(3, hugetlb.pagesize);
    return out.take();
}

}  // namespace

Any encode_metrics(const Metrics& metrics) {
    using C = CPUStat;
    ProtoWriter out;
    out.message(1, encode_counters(metrics.pids, {&PidsStat::current, &PidsStat::limit}));
    out.message(2, encode_counters(metrics.cpu, {&C::usage_usec, &C::user_usec, &C::system_usec, &C::nr_periods,
                                                 &C::nr_throttled, &C::throttled_usec}));
    out.message(4, encode(metrics.memory));
    out.message(6, encode(metrics.io));
    for (const auto& hugetlb : metrics.hugetlb) out.message(7, encode(hugetlb));
    using E = MemoryEvents;
    out.message(8, encode_counters(metrics.memory_events, {&E::low, &E::high, &E::max, &E::oom, &E::oom_kill}));
    return {"io.containerd.cgroups.v2.Metrics", out.take()};
}

}  // namespace husk::ttrpc
