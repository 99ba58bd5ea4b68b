// husk tenant set|show|reset NAME: a tenant's ceilings across runs and what its ledger adds up to
// (docs/tenants.md). --memory, --pids and --cpus read like husk sandbox's, for the tenant's shared cgroup.
#include "base/size.hpp"
#include "cli/cli.hpp"
#include "cli/resource_flags.hpp"
#include "base/duration.hpp"

namespace husk::cli {
namespace {

constexpr const char* usage =
    "set NAME [--cpu D] [--wall D] [--runs N] [--output SIZE] [--concurrent N] [--period D]\n"
    "                            [--memory SIZE] [--pids N] [--cpus X]\n"
    "       husk tenant show NAME\n"
    "       husk tenant reset NAME\n"
    "       husk tenant compact NAME";

Result<std::optional<std::chrono::microseconds>> duration_flag(const OptionValues& values, const char* flag) {
    if (!values.has(flag)) return std::nullopt;
    auto parsed = parse_duration(values.text(flag));
    if (!parsed) return fail(parsed.error().context(std::string("--") + flag));
    return *parsed;
}

Result<std::optional<std::uint64_t>> optional_size(const OptionValues& values, const char* flag) {
    if (!values.has(flag)) return std::nullopt;
    auto parsed = parse_size(values.text(flag));
    if (!parsed) return fail(parsed.error().context(std::string("--") + flag));
    return *parsed;
}

Result<TenantCeilings> read_ceilings(const OptionValues& values) {
    TenantCeilings c;
    c.cpu = TRY(duration_flag(values, "cpu"));
    c.wall = TRY(duration_flag(values, "wall"));
    c.period = TRY(duration_flag(values, "period"));
    c.output = TRY(optional_size(values, "output"));
    if (values.has("memory")) c.memory = TRY(size_flag("memory", values.text("memory")));
    if (values.has("pids")) c.pids = TRY(whole_number("pids", values.text("pids"), 1, 1u << 22));
    if (values.has("cpus")) c.cpus = TRY(cpus_flag(values.text("cpus")));
    if (values.has("runs")) c.runs = values.uint64_number("runs");
    if (values.has("concurrent")) c.concurrent = values.uint64_number("concurrent");
    if (c.period && c.period->count() == 0) return fail_msg("--period: must be greater than 0");
    return c;
}

}  // namespace

int verb_tenant(const Globals& globals, const Args& args) {
    static constexpr Option ceilings[] = {
        {"cpu", 0, Takes::text, "CPU time of all runs together (cgroup cpu.stat usage_usec; 10m, 1h)"},
        {"wall", 0, Takes::text, "wall time of all runs together, each from start to its end (1h)"},
        {"runs", 0, Takes::uint64_number, "runs started"},
        {"output", 0, Takes::text, "stdout+stderr bytes of all runs together (1G; see SIZES)"},
        {"concurrent", 0, Takes::uint64_number, "runs alive at once"},
        {"period", 0, Takes::text, "the window the ceilings count in (24h); none: since the last reset"},
        {"memory", 0, Takes::text, "memory.max of the tenant's cgroup: all live runs together (1G; SIZES; cgroup v2 "
                                   "memory controller)"},
        {"pids", 0, Takes::text, "pids.max of the tenant's cgroup: processes of all live runs together"},
        {"cpus", 0, Takes::text, "cpu.max of the tenant's cgroup: CPU rate of all live runs together (0.5, 2; at "
                                 "least 0.01)"},
    };
    OptionSet options("set's ceilings (each absent one is no ceiling; set replaces them all)");
    options.add(ceilings);
    OptionValues values;
    int status = 0;
    if (!parse_verb("tenant", usage, options, {"action", "id"}, args, values, &status)) return status;
    if (!values.has("action") || !values.has("id")) {
        say("husk: tenant: want set, show, reset or compact and a tenant name\n");
        return 2;
    }
    const std::string action = values.text("action");
    const std::string name = values.text("id");
    const std::string context = "tenant " + action + " " + name;
    bool has_ceilings = false;
    for (const Option& ceiling : ceilings) has_ceilings |= values.has(ceiling.name);
    if (action != "set" && has_ceilings) {
        say("husk: tenant %s: ceilings are given to set only\n", action.c_str());
        return 2;
    }
    if (action == "set") {
        auto ceilings = read_ceilings(values);
        if (!ceilings) return report(globals, context, ceilings.error());
        if (auto set = set_tenant(globals.runtime, name, *ceilings); !set) return report(globals, context, set.error());
        return 0;
    }
    if (action == "show") {
        auto json = tenant_json(globals.runtime, name);
        if (!json) return report(globals, context, json.error());
        std::fputs(json->c_str(), stdout);
        return 0;
    }
    if (action == "reset") {
        if (auto reset = reset_tenant(globals.runtime, name); !reset) return report(globals, context, reset.error());
        return 0;
    }
    if (action == "compact") {
        if (auto compact = compact_tenant(globals.runtime, name); !compact) return report(globals, context, compact.error());
        return 0;
    }
    say("husk: tenant: unknown action \"%s\" (set, show, reset or compact)\n", action.c_str());
    return 2;
}

}  // namespace husk::cli
