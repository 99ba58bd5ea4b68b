#include "container/tenant.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <variant>

#include "base/json_writer.hpp"
#include "base/quote.hpp"
#include "container/config.hpp"
#include "container/observe.hpp"
#include "husk/container.hpp"
#include "monitor/tenant_charge.hpp"
#include "state/process_identity.hpp"
#include "state/state_dir.hpp"
#include "tenant/account.hpp"

namespace husk::container {
namespace {

using std::chrono::microseconds;
using std::chrono::milliseconds;

// Where a live run's container stands: still being run (its monitor, or a live owner, will end it), gone (its
// state dir is, or names another run of the same id, or is from an earlier boot), or orphaned: stopped, with its
// monitor and owner gone (container/observe.hpp), so nobody but `husk gc` would ever charge it.
enum class RunStanding { running, gone, orphaned };

struct Found {
    RunStanding standing = RunStanding::running;
    std::optional<state::Record> record;  // orphaned: its record
};

// A record of an earlier boot (a --root on persistent storage) names processes and a cgroup the reboot ended: that
// run is over, and its state dir stays only until husk delete or gc removes it.
Found find_run(const std::string& root, const std::string& run, const std::string& boot_id) {
    auto at = run.find('@');
    if (at == std::string::npos) return {RunStanding::gone, {}};
    auto id = ContainerId::parse(run.substr(0, at));
    if (!id) return {RunStanding::gone, {}};
    auto dir = state::StateDir::open(root, *id);
    // Unreadable is not gone: never guess it away.
    if (!dir) return {dir.error().kind != ErrorKind::not_found ? RunStanding::running : RunStanding::gone, {}};
    auto record = dir->read_record();
    if (!record) return {RunStanding::running, {}};  // a create still writing its first record
    if (record->created != run.substr(at + 1)) return {RunStanding::gone, {}};
    if (!boot_id.empty() && !record->boot_id.empty() && record->boot_id != boot_id) return {RunStanding::gone, {}};
    if (orphaned(*dir, *record)) return {RunStanding::orphaned, std::move(*record)};
    return {RunStanding::running, {}};
}

// Recovery, at every admission (and `tenant show`): a start record without an end is charged now when no one else
// will charge it, so a service using tenants never has to run `husk gc` for its budgets to come back.
// - Its container is gone (a reboot emptied /run, or its state dir was removed without husk delete): CPU from
//   its cgroup if that is still there; else, like wall time and output (which only the lost monitor measured),
//   the budget the run was given: the most it could use while enforced, so the tenant is charged at most that
//   and at least what a run that ended within its limits used.
// - Its container is orphaned (husk run SIGKILLed, its monitor with it): what its record and cgroup say, as delete
//   would charge it (the cgroup's CPU, the wall time from start to its recorded end, else to now, capped by the
//   run's budget). delete and gc later find the end record and charge nothing twice.
Result<void> recover_gone_runs(const std::string& root, tenant::Ledger& ledger, const tenant::Ceilings& ceilings) {
    std::int64_t now = tenant::now_usec();
    tenant::Account account = tenant::replay(ledger.records(), now, ceilings);
    if (account.live.empty()) return {};
    const std::string boot_id = state::read_boot_id().value_or(std::string());
    for (const tenant::StartRecord& start : account.live) {
        Found found = find_run(root, start.run, boot_id);
        if (found.standing == RunStanding::running) continue;
        tenant::EndRecord end{start.run, now, {}, tenant::Source::recovered_budget};
        std::optional<std::uint64_t> cpu;
        if (!start.cgroup.empty()) cpu = monitor::read_cgroup_cpu_usage(start.cgroup);
        if (!cpu && found.record && found.record->exit) cpu = found.record->exit->usage.cpu_usec;
        if (cpu) end.source = tenant::Source::recovered_cgroup;
        if (found.standing == RunStanding::orphaned) {
            end.used = monitor::used_by(*found.record, cpu);
            if (!cpu) end.used.cpu_usec = start.budgets.cpu_usec.value_or(0);
            if (start.budgets.wall_usec) end.used.wall_usec = std::min(end.used.wall_usec, *start.budgets.wall_usec);
            if (!found.record->exit) end.used.output_bytes = start.budgets.output_bytes.value_or(0);
        } else {
            end.used.cpu_usec = cpu.value_or(start.budgets.cpu_usec.value_or(0));
            end.used.wall_usec =
                start.budgets.wall_usec.value_or(static_cast<std::uint64_t>(std::max<std::int64_t>(now - start.at_usec, 0)));
            end.used.output_bytes = start.budgets.output_bytes.value_or(0);
        }
        TRY(ledger.append(end));
    }
    return {};
}

struct Opened {
    tenant::Ledger ledger;
    tenant::Ceilings ceilings;
};

Result<Opened> open_tenant(const std::string& root, const std::string& name) {
    TRY(tenant::validate_name(name));
    tenant::Ceilings ceilings = TRY(tenant::read_ceilings(root, name));
    tenant::Ledger ledger = TRY(tenant::Ledger::open(root, name));
    TRY(recover_gone_runs(root, ledger, ceilings));
    // The ledger only grows: past a size, the records that no longer change a total are folded away.
    if (ledger.size() > tenant::compact_after_bytes) TRY(ledger.compact(ceilings, tenant::now_usec()));
    return Opened{std::move(ledger), ceilings};
}

std::optional<std::uint64_t> usec(const std::optional<milliseconds>& value) {
    if (!value) return std::nullopt;
    return static_cast<std::uint64_t>(std::chrono::duration_cast<microseconds>(*value).count());
}

void write_optional(JsonWriter& w, const char* key, const std::optional<std::uint64_t>& value) {
    if (value) w.key(key).unsigned_integer(*value);
}

void write_amounts(JsonWriter& w, const char* key, const tenant::Amounts& amounts, std::optional<std::uint64_t> runs) {
    w.key(key).begin_object();
    w.key("cpuUsec").unsigned_integer(amounts.cpu_usec);
    w.key("wallUsec").unsigned_integer(amounts.wall_usec);
    w.key("outputBytes").unsigned_integer(amounts.output_bytes);
    if (runs) w.key("runs").unsigned_integer(*runs);
    w.end_object();
}

}  // namespace

Result<std::optional<TenantAdmission>> admit_tenant(const std::string& root, spec::HuskSettings& settings) {
    const std::optional<std::string>& tenant = settings.tenant;
    if (!tenant) return std::nullopt;
    auto opened = open_tenant(root, *tenant);
    if (!opened && opened.error().kind != ErrorKind::not_found)
        return fail(opened.error().context("tenant " + quoted(*tenant)));
    if (!opened) return fail(opened.error());
    tenant::Account account = tenant::replay(opened->ledger.records(), tenant::now_usec(), opened->ceilings);
    if (auto why = tenant::exhausted(opened->ceilings, account))
        return fail_msg("tenant " + quoted(*tenant) + " has used up its quota: " + *why, ErrorKind::tenant_quota);
    tenant::Budgets own;
    if (settings.cpu_limit) own.cpu_usec = static_cast<std::uint64_t>(settings.cpu_limit->count());
    own.wall_usec = usec(settings.timeout);
    own.output_bytes = settings.output_limit;
    tenant::Budgets budgets = tenant::clamp(own, tenant::remaining(opened->ceilings, account));
    if (budgets.cpu_usec) settings.cpu_limit = microseconds(*budgets.cpu_usec);
    // The timer counts whole milliseconds: round down, so the run never gets more than the tenant has (at
    // least 1 ms, since what is left is not 0).
    if (budgets.wall_usec) {
        settings.timeout = milliseconds(std::max<std::uint64_t>(*budgets.wall_usec / 1000, 1));
        budgets.wall_usec = static_cast<std::uint64_t>(settings.timeout->count()) * 1000;
    }
    settings.output_limit = budgets.output_bytes;
    return TenantAdmission{std::move(opened->ledger), *tenant, budgets, opened->ceilings, false, {}};
}

Result<void> place_tenant_cgroup(const TenantAdmission& admission, cgroup::CgroupPlan& plan,
                                 std::string_view cgroups_path, std::string_view container_id) {
    const tenant::Ceilings& c = admission.ceilings;
    if (!c.has_cgroup_ceilings()) return {};
    cgroup::SharedParent parent{admission.name, "tenant " + quoted(admission.name), c.memory_bytes, c.pids,
                                c.cpu_quota_usec};
    return cgroup::place_under_shared_parent(plan, std::move(parent), cgroups_path, container_id);
}

Result<void> record_tenant_start(TenantAdmission& admission, const std::string& run, const std::string& cgroup) {
    admission.run = run;
    TRY(admission.ledger.append(tenant::StartRecord{run, tenant::now_usec(), admission.budgets, cgroup}));
    admission.started = true;
    admission.ledger.close();
    return {};
}

void roll_back_tenant_start(const std::string& root, TenantAdmission& admission, const std::string& cgroup) {
    if (!admission.started) return;
    tenant::Amounts used;
    if (!cgroup.empty()) used.cpu_usec = monitor::read_cgroup_cpu_usage(cgroup).value_or(0);
    (void)monitor::charge_tenant(monitor::TenantRun{root, admission.name, admission.run}, used,
                                 tenant::Source::rollback);
}

void charge_deleted(const std::string& root, const std::string& tenant, const state::Record& record) {
    const monitor::TenantRun run = monitor::tenant_run(root, tenant, record);
    std::optional<std::uint64_t> cpu;
    if (auto cgroup = cgroup_of(record)) cpu = monitor::read_cgroup_cpu_usage(cgroup->where());
    if (!cpu && record.exit) cpu = record.exit->usage.cpu_usec;
    (void)monitor::charge_tenant(run, monitor::used_by(record, cpu), tenant::Source::deleted);
}

}  // namespace husk::container

namespace husk {

Result<void> set_tenant(const Runtime& runtime, const std::string& name, const TenantCeilings& ceilings) {
    TRY(tenant::validate_name(name));
    tenant::Ceilings c;
    auto count = [](const std::optional<std::chrono::microseconds>& d) -> std::optional<std::uint64_t> {
        if (!d) return std::nullopt;
        return static_cast<std::uint64_t>(d->count());
    };
    c.cpu_usec = count(ceilings.cpu);
    c.wall_usec = count(ceilings.wall);
    c.period_usec = count(ceilings.period);
    c.runs = ceilings.runs;
    c.output_bytes = ceilings.output;
    c.concurrent = ceilings.concurrent;
    c.memory_bytes = ceilings.memory;
    c.pids = ceilings.pids;
    if (ceilings.cpus)
        c.cpu_quota_usec = static_cast<std::uint64_t>(std::llround(*ceilings.cpus * cgroup::shared_cpu_period_usec));
    // Ceilings the kernel enforces need their controllers in this host's cgroup v2 hierarchy: refused here, naming
    // what is missing, rather than accepted and failing every run (fail closed, at the first chance).
    if (c.has_cgroup_ceilings())
        TRY(cgroup::check_shared_parent(cgroup::SharedParent{name, "tenant " + quoted(name), c.memory_bytes, c.pids,
                                                             c.cpu_quota_usec}));
    // Under the ledger's lock when it exists, so a run deciding meanwhile sees the old ceilings or the new.
    auto ledger = tenant::Ledger::open(runtime.root, name);
    if (!ledger && ledger.error().kind != ErrorKind::not_found) return fail(ledger.error());
    return tenant::write_ceilings(runtime.root, name, c);
}

Result<void> reset_tenant(const Runtime& runtime, const std::string& name) {
    auto opened = TRY(container::open_tenant(runtime.root, name));
    return opened.ledger.append(tenant::ResetRecord{tenant::now_usec()});
}

Result<void> compact_tenant(const Runtime& runtime, const std::string& name) {
    auto opened = TRY(container::open_tenant(runtime.root, name));
    return opened.ledger.compact(opened.ceilings, tenant::now_usec());
}

Result<std::string> tenant_json(const Runtime& runtime, const std::string& name) {
    auto opened = TRY(container::open_tenant(runtime.root, name));
    std::int64_t now = tenant::now_usec();
    tenant::Account account = tenant::replay(opened.ledger.records(), now, opened.ceilings);
    tenant::Remaining left = tenant::remaining(opened.ceilings, account);
    const tenant::Ceilings& c = opened.ceilings;
    JsonWriter w(JsonWriter::Style::pretty);
    w.begin_object();
    w.key("name").string(name);
    w.key("ceilings").begin_object();
    container::write_optional(w, "cpuUsec", c.cpu_usec);
    container::write_optional(w, "wallUsec", c.wall_usec);
    container::write_optional(w, "outputBytes", c.output_bytes);
    container::write_optional(w, "runs", c.runs);
    container::write_optional(w, "concurrent", c.concurrent);
    container::write_optional(w, "periodUsec", c.period_usec);
    container::write_optional(w, "memoryBytes", c.memory_bytes);
    container::write_optional(w, "pids", c.pids);
    container::write_optional(w, "cpuQuotaUsec", c.cpu_quota_usec);
    w.end_object();
    w.key("windowStartUsec").integer(account.window_start_usec);
    container::write_amounts(w, "used", account.used, account.runs);
    container::write_amounts(w, "reserved", account.reserved, std::nullopt);
    w.key("remaining").begin_object();
    container::write_optional(w, "cpuUsec", left.budgets.cpu_usec);
    container::write_optional(w, "wallUsec", left.budgets.wall_usec);
    container::write_optional(w, "outputBytes", left.budgets.output_bytes);
    container::write_optional(w, "runs", left.runs);
    container::write_optional(w, "concurrent", left.concurrent);
    w.end_object();
    auto why = tenant::exhausted(c, account);
    if (why) w.key("exhausted").string(*why);
    w.key("live").begin_array();
    for (const tenant::StartRecord& start : account.live) {
        w.begin_object();
        w.key("run").string(start.run);
        w.key("startedUsec").integer(start.at_usec);
        container::write_optional(w, "cpuUsec", start.budgets.cpu_usec);
        container::write_optional(w, "wallUsec", start.budgets.wall_usec);
        container::write_optional(w, "outputBytes", start.budgets.output_bytes);
        if (!start.cgroup.empty()) w.key("cgroup").string(start.cgroup);
        w.end_object();
    }
    w.end_array();
    w.end_object();
    return w.str() + "\n";
}

}  // namespace husk
