// Tenants on the container side (docs/tenants.md): admission before a tenant run exists (refuse an exhausted
// tenant, clamp the run's limits to what is left, write the start record), the charge of a run whose monitor
// was lost (husk delete), and recovery of runs whose container is gone (every replay).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "cgroup/cgroup.hpp"
#include "husk/error.hpp"
#include "spec/settings.hpp"
#include "state/record.hpp"
#include "tenant/ceilings.hpp"
#include "tenant/ledger.hpp"

namespace husk::container {

// An admitted run: the ledger stays locked until the start record is written, so no other run of the tenant
// decides on the same remainder meanwhile.
struct TenantAdmission {
    tenant::Ledger ledger;
    std::string name;
    tenant::Budgets budgets;  // what the run's settings now hold
    tenant::Ceilings ceilings;  // as read at admission: the shared parent's limits come from them
    bool started = false;     // the start record is in the ledger: a rollback owes an end record
    std::string run;
};

// Nothing without run.husk.tenant. A tenant that has used up a ceiling is an ErrorKind::tenant_quota error
// saying which and how much. Otherwise the settings' cpu-limit, timeout and output-limit become the smaller of
// their own and what the tenant has left (every ceiling the tenant has gives the run a limit): what the monitor
// enforces and the effective config records.
Result<std::optional<TenantAdmission>> admit_tenant(const std::string& root, spec::HuskSettings& settings);

// Places the run's cgroup below the tenant's shared parent when the tenant has cgroup ceilings (memory, pids,
// cpus), whose limits create_cgroup then writes from the ceilings read at this admission. Refused, naming
// what is missing, where the v2 hierarchy cannot enforce them.
Result<void> place_tenant_cgroup(const TenantAdmission& admission, cgroup::CgroupPlan& plan,
                                 std::string_view cgroups_path, std::string_view container_id);

// The start record (`run` is "<id>@<created>"; `cgroup` the container's cgroup directory, empty without one).
// Then the ledger's lock is let go.
Result<void> record_tenant_start(TenantAdmission& admission, const std::string& run, const std::string& cgroup);

// A create that failed after its start record: the end record with what its cgroup used (best effort).
void roll_back_tenant_start(const std::string& root, TenantAdmission& admission, const std::string& cgroup);

// husk delete of a tenant container (`tenant`: its effective config's): charges what its cgroup used, unless the
// monitor did (best effort: a replay recovers it when this fails).
void charge_deleted(const std::string& root, const std::string& tenant, const state::Record& record);

}  // namespace husk::container
