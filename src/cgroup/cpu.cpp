// The cpu controller (cgroup-v2.rst "CPU"): linux.resources.cpu's shares, quota, period, burst and idle →
// cpu.weight, cpu.max, cpu.max.burst and cpu.idle; cpu.stat for stats. cpus and mems are cpuset's.
#include "cgroup/controller.hpp"

#include <cmath>

#include "cgroup/readback_format.hpp"

namespace husk::cgroup {
namespace {

void list_cpu(const spec::CpuResources& cpu, Requests& out) {
    out.add_if(cpu.shares, "cpu.shares", "cpu");
    out.add_if(cpu.quota, "cpu.quota", "cpu");
    out.add_if(cpu.burst, "cpu.burst", "cpu");
    out.add_if(cpu.period, "cpu.period", "cpu");
    out.add_if(cpu.realtime_runtime, "cpu.realtimeRuntime", "cpu");
    out.add_if(cpu.realtime_period, "cpu.realtimePeriod", "cpu");
    // cpus and mems are cpuset's (cpuset.cpp plans them), asked for here in the order config-linux.md lists
    // the section, idle last: the host check names the first field it cannot serve.
    if (!cpu.cpus.empty()) out.add("cpu.cpus", "cpuset");
    if (!cpu.mems.empty()) out.add("cpu.mems", "cpuset");
    out.add_if(cpu.idle, "cpu.idle", "cpu");
}

void list(const spec::Resources& resources, Requests& out) {
    if (resources.cpu) list_cpu(*resources.cpu, out);
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
    if (has_period) {
        value += ' ';
        value += std::to_string(*cpu.period);
    } else if (!update) {
        value += " 100000";
    }
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
    return {};
}

Result<void> plan(const spec::Resources& resources, Writes& out) {
    if (resources.cpu) TRY(plan_cpu(*resources.cpu, out));
    return {};
}

// cpu.max: "$QUOTA [$PERIOD]"; a quota alone leaves the period as it was.
Readback compare_cpu_max(std::string_view written, std::string_view read) {
    std::vector<std::string_view> w = split(written, " \t\n"), r = split(read, " \t\n");
    if (w.empty() || w.size() > 2) return Readback::unknown;
    if (r.size() != 2) return Readback::mismatch;
    Readback quota = compare_number_or_max(w[0], r[0]);
    if (quota != Readback::match || w.size() == 1) return quota;
    return compare_number_or_max(w[1], r[1]);
}

std::optional<Readback> compare(std::string_view file, std::string_view written, std::string_view read,
                                std::size_t) {
    if (one_of(file, {"cpu.weight", "cpu.weight.nice", "cpu.idle", "cpu.max.burst"}))
        return compare_number_or_max(written, read);
    if (file == "cpu.max") return compare_cpu_max(written, read);
    return std::nullopt;
}

// cpu.stat is a core file: it exists (with the usage fields) even without the cpu controller.
Result<void> read_counters(int dir_fd, const std::string& where, Stats& stats) {
    if (auto text = TRY(read_optional_file(dir_fd, "cpu.stat", where)))
        stats.cpu = TRY(parse_cpu_stat(*text, where + "/cpu.stat"));
    return {};
}

}  // namespace

extern const Controller cpu_controller{"cpu", list, plan, compare, read_counters};

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


}  // namespace husk::cgroup
