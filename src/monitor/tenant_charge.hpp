// A tenant run's end record (docs/tenants.md): what the run really used, from the counters the monitor reads for
// the verdict, appended once, by whoever sees the end first (the monitor; husk delete when the monitor was lost;
// a replay when the container is gone).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "cgroup/location.hpp"
#include "husk/error.hpp"
#include "state/record.hpp"
#include "tenant/record.hpp"

namespace husk::monitor {

// Which tenant a container's run is charged to and under which name its records go.
struct TenantRun {
    std::string root;  // husk's --root: the ledger is <root>/tenants/NAME.ledger
    std::string name;
    std::string run;   // "<id>@<created>"
};

// The run of a container charged to `tenant` (its effective config's run.husk.tenant): "<id>@<created>".
TenantRun tenant_run(const std::string& root, const std::string& tenant, const state::Record& record);

// cpu.stat usage_usec of a cgroup directory ("/sys/fs/cgroup/unified/husk/c1") now; nothing when it is gone or
// has no such counter.
std::optional<std::uint64_t> read_cgroup_cpu_usage(const std::string& where);

// What the run used by the facts in its record: the cgroup's CPU (`cpu_usec`, from the counters), the wall time
// from `started` to the exit (or to now, without one; none if it never started), the output the pump counted.
tenant::Amounts used_by(const state::Record& record, std::optional<std::uint64_t> cpu_usec);

// Appends the end record unless the ledger has one for this run already, or no start record (nothing was
// admitted, so nothing ran): true when this call wrote it.
Result<bool> charge_tenant(const TenantRun& run, const tenant::Amounts& used, tenant::Source source);

}  // namespace husk::monitor
