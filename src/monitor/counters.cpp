#include "monitor/counters.hpp"

#include "cgroup/hierarchy.hpp"
#include "cgroup/stats.hpp"

namespace husk::monitor {
namespace {

// A key of a flat keyed cgroup file ("max" of pids.events), nothing when the file or key is not there.
std::optional<std::uint64_t> keyed_counter(int dir_fd, const char* file, std::string_view key, const std::string& where) {
    auto counters = cgroup::read_keyed_counters(dir_fd, file, where);
    if (!counters || !*counters) return std::nullopt;
    for (const auto& [name, value] : **counters)
        if (name == key) return value;
    return std::nullopt;
}

}  // namespace

std::optional<std::uint64_t> read_oom_kills(const std::optional<cgroup::CgroupLocation>& cgroup) {
    if (!cgroup) return std::nullopt;
    auto dir = cgroup::open_cgroup_dir(*cgroup);
    if (!dir) return std::nullopt;
    auto count = cgroup::read_oom_count(dir->get(), cgroup->where());
    return count ? *count : std::nullopt;
}

std::optional<std::uint64_t> read_pids_max_hits(int dir_fd, const std::string& where) {
    return keyed_counter(dir_fd, "pids.events", "max", where);
}

std::optional<std::uint64_t> read_pids_max_hits(const std::optional<cgroup::CgroupLocation>& cgroup) {
    if (!cgroup) return std::nullopt;
    auto dir = cgroup::open_cgroup_dir(*cgroup);
    if (!dir) return std::nullopt;
    return read_pids_max_hits(dir->get(), cgroup->where());
}

std::optional<std::uint64_t> read_memory_max_hits(const std::optional<cgroup::CgroupLocation>& cgroup) {
    if (!cgroup) return std::nullopt;
    auto dir = cgroup::open_cgroup_dir(*cgroup);
    if (!dir) return std::nullopt;
    return keyed_counter(dir->get(), "memory.events", "max", cgroup->where());
}

std::optional<std::uint64_t> read_cpu_usage(const MonitorPlan& plan) {
    if (!plan.cgroup) return std::nullopt;
    auto dir = cgroup::open_cgroup_dir(*plan.cgroup);
    if (!dir) return std::nullopt;
    return keyed_counter(dir->get(), "cpu.stat", "usage_usec", plan.cgroup->where());
}

FinalCounters read_final_counters(const MonitorPlan& plan) {
    FinalCounters out;
    if (!plan.cgroup) return out;
    auto dir = cgroup::open_cgroup_dir(*plan.cgroup);
    if (!dir) return out;
    std::string where = plan.cgroup->where();
    // A counter that cannot be read is left out of husk.usage; it never changes the verdict.
    out.usage.cpu_usec = keyed_counter(dir->get(), "cpu.stat", "usage_usec", where);
    if (auto hits = read_pids_max_hits(dir->get(), where); hits && plan.pids_max_before && *hits > *plan.pids_max_before)
        out.factors.push_back(state::Factor{std::string(pids_limit_factor), *hits - *plan.pids_max_before});
    if (auto hits = keyed_counter(dir->get(), "memory.events", "max", where);
        hits && plan.memory_max_before && *hits > *plan.memory_max_before)
        out.factors.push_back(state::Factor{std::string(memory_limit_factor), *hits - *plan.memory_max_before});
    if (plan.net)
        if (auto denied = cgroup::read_net_denied(*plan.net); denied && *denied > 0)
            out.factors.push_back(state::Factor{std::string(network_denied_factor), *denied});
    out.usage.memory_peak_bytes = cgroup::read_single_counter(dir->get(), "memory.peak", where).value_or(std::nullopt);
    out.usage.pids_peak = cgroup::read_single_counter(dir->get(), "pids.peak", where).value_or(std::nullopt);
    if (plan.net)
        if (auto ops = cgroup::read_net_ops(*plan.net)) out.usage.net_ops = *ops;
    if (!plan.oom_kills_before) return out;
    auto now = cgroup::read_oom_count(dir->get(), where);
    if (now && *now && **now > *plan.oom_kills_before) out.facts.oom_kills = **now - *plan.oom_kills_before;
    if (auto max = cgroup::read_cgroup_file(dir->get(), "memory.max", where)) {
        out.facts.memory_max = *max;
        while (!out.facts.memory_max.empty() && out.facts.memory_max.back() == '\n') out.facts.memory_max.pop_back();
    }
    if (auto local = cgroup::read_cgroup_file(dir->get(), "memory.events.local", where))
        out.facts.memory_max_hits = cgroup::flat_keyed_value(*local, "max");
    return out;
}

}  // namespace husk::monitor
