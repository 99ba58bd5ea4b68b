#include "monitor/tenant_charge.hpp"

#include <algorithm>
#include <variant>

#include <fcntl.h>

#include "base/fs.hpp"
#include "base/time.hpp"
#include "cgroup/stats.hpp"
#include "tenant/ledger.hpp"

namespace husk::monitor {

TenantRun tenant_run(const std::string& root, const std::string& tenant, const state::Record& record) {
    return TenantRun{root, tenant, record.id + "@" + record.created};
}

std::optional<std::uint64_t> read_cgroup_cpu_usage(const std::string& where) {
    auto dir = open_fd(where, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
    if (!dir) return std::nullopt;
    auto counters = cgroup::read_keyed_counters(dir->get(), "cpu.stat", where);
    if (!counters || !*counters) return std::nullopt;
    for (const auto& [key, value] : **counters)
        if (key == "usage_usec") return value;
    return std::nullopt;
}

tenant::Amounts used_by(const state::Record& record, std::optional<std::uint64_t> cpu_usec) {
    tenant::Amounts used;
    used.cpu_usec = cpu_usec.value_or(0);
    if (auto started = parse_rfc3339_usec(record.started)) {
        std::optional<std::int64_t> finished;
        if (record.exit) finished = parse_rfc3339_usec(record.exit->finished);
        std::int64_t end = finished.value_or(tenant::now_usec());
        used.wall_usec = static_cast<std::uint64_t>(std::max<std::int64_t>(end - *started, 0));
    }
    if (record.exit)
        used.output_bytes =
            record.exit->usage.stdout_bytes.value_or(0) + record.exit->usage.stderr_bytes.value_or(0);
    return used;
}

Result<bool> charge_tenant(const TenantRun& run, const tenant::Amounts& used, tenant::Source source) {
    auto ledger = TRY(tenant::Ledger::open(run.root, run.name));
    bool admitted = false;  // a create that died before its start record never ran anything
    for (const tenant::Record& record : ledger.records()) {
        if (const auto* end = std::get_if<tenant::EndRecord>(&record); end && end->run == run.run) return false;
        if (const auto* start = std::get_if<tenant::StartRecord>(&record); start && start->run == run.run)
            admitted = true;
    }
    if (!admitted) return false;
    TRY(ledger.append(tenant::EndRecord{run.run, tenant::now_usec(), used, source}));
    return true;
}

}  // namespace husk::monitor
