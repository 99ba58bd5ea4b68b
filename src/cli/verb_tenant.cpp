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

Result<std::optional<std::chrono::microseconds>> duration_flag(const po::variables_map& vm, const char* flag) {
    if (!vm.count(flag)) return std::nullopt;
    auto parsed = parse_duration(vm[flag].as<std::string>());
    if (!parsed) return fail(parsed.error().context(std::string("--") + flag));
    return *parsed;
}

Result<std::optional<std::uint64_t>> optional_size(const po::variables_map& vm, const char* flag) {
    if (!vm.count(flag)) return std::nullopt;
    auto parsed = parse_size(vm[flag].as<std::string>());
    if (!parsed) return fail(parsed.error().context(std::string("--") + flag));
    return *parsed;
}

Result<TenantCeilings> read_ceilings(const po::variables_map& vm) {
    TenantCeilings c;
    c.cpu = TRY(duration_flag(vm, "cpu"));
    c.wall = TRY(duration_flag(vm, "wall"));
    c.period = TRY(duration_flag(vm, "period"));
    c.output = TRY(optional_size(vm, "output"));
    if (vm.count("memory")) c.memory = TRY(size_flag("memory", vm["memory"].as<std::string>()));
    if (vm.count("pids")) c.pids = TRY(whole_number("pids", vm["pids"].as<std::string>(), 1, 1u << 22));
    if (vm.count("cpus")) c.cpus = TRY(cpus_flag(vm["cpus"].as<std::string>()));
    if (vm.count("runs")) c.runs = vm["runs"].as<std::uint64_t>();
    if (vm.count("concurrent")) c.concurrent = vm["concurrent"].as<std::uint64_t>();
    if (c.period && c.period->count() == 0) return fail_msg("--period: must be greater than 0");
    return c;
}

}  // namespace

int verb_tenant(const Globals& globals, const Args& args) {
    po::options_description options("set's ceilings (each absent one is no ceiling; set replaces them all)");
    options.add_options()
        ("cpu", po::value<std::string>(), "CPU time of all runs together (cgroup cpu.stat usage_usec; 10m, 1h)")
        ("wall", po::value<std::string>(), "wall time of all runs together, each from start to its end (1h)")
        ("runs", po::value<std::uint64_t>(), "runs started")
        ("output", po::value<std::string>(), "stdout+stderr bytes of all runs together (1G; see SIZES)")
        ("concurrent", po::value<std::uint64_t>(), "runs alive at once")
        ("period", po::value<std::string>(), "the window the ceilings count in (24h); none: since the last reset")
        ("memory", po::value<std::string>(), "memory.max of the tenant's cgroup: all live runs together (1G; SIZES; "
                                             "cgroup v2 memory controller)")
        ("pids", po::value<std::string>(), "pids.max of the tenant's cgroup: processes of all live runs together")
        ("cpus", po::value<std::string>(), "cpu.max of the tenant's cgroup: CPU rate of all live runs together "
                                           "(0.5, 2; at least 0.01)");
    po::positional_options_description positional;
    positional.add("action", 1).add("id", 1);
    po::variables_map vm;
    int status = 0;
    if (!parse_verb("tenant", usage, options, positional, args, vm, &status)) return status;
    if (!vm.count("action") || !vm.count("id")) {
        say("husk: tenant: want set, show, reset or compact and a tenant name\n");
        return 2;
    }
    const std::string action = vm["action"].as<std::string>();
    const std::string name = vm["id"].as<std::string>();
    const std::string context = "tenant " + action + " " + name;
    bool has_ceilings = false;
    for (const char* flag : {"cpu", "wall", "runs", "output", "concurrent", "period", "memory", "pids", "cpus"}) has_ceilings |= vm.count(flag) > 0;
    if (action != "set" && has_ceilings) {
        say("husk: tenant %s: ceilings are given to set only\n", action.c_str());
        return 2;
    }
    if (action == "set") {
        auto ceilings = read_ceilings(vm);
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
