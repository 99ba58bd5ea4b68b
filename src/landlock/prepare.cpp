// The parent's half: probe the kernel's ABI, resolve names to bits and decide, before anything is cloned, whether
// the requested policy can be enforced as asked (docs/landlock.md, "Strict by default, best effort on request").
#include <cerrno>
#include <string>
#include <vector>

#include "landlock/abi.hpp"
#include "landlock/landlock.hpp"
#include "landlock/rights.hpp"

namespace husk::landlock {
namespace {

using Access = spec::Landlock::Access;

constexpr std::string_view prefix = "process.landlock";

const char* kind_word(RightKind kind) {
    switch (kind) {
        case RightKind::fs: return "filesystem access right";
        case RightKind::network: return "network access right";
        case RightKind::scope: return "scope";
    }
    return "";
}

std::string indexed(std::string_view base, std::size_t i) { return std::string(base) + "[" + std::to_string(i) + "]"; }

// Names and numbers of one access property → one mask. An unknown name is an error naming the element.
Result<std::uint64_t> resolve(RightKind kind, const std::vector<Access>& list, const std::string& field) {
    std::uint64_t mask = 0;
    for (std::size_t i = 0; i < list.size(); ++i) {
        if (list[i].name.empty()) {
            mask |= list[i].bits;
            continue;
        }
        const Right* right = find_right(kind, list[i].name);
        if (!right)
            return fail_msg(indexed(field, i) + ": unknown " + kind_word(kind) + " \"" + list[i].name +
                            "\" (known: " + mask_names(kind, enforceable(kind, ~0ull, abi::known_abi)) +
                            ")");
        mask |= right->bit;
    }
    return mask;
}

// A rule's allowed access: non-empty, and handled by the ruleset (else the kernel says EINVAL).
Result<std::uint64_t> resolve_allowed(RightKind kind, const std::vector<Access>& list, std::uint64_t handled,
                                      const std::string& field, std::string_view handled_field) {
    const std::uint64_t allowed = TRY(resolve(kind, list, field));
    if (allowed == 0) return fail_msg(field + ": empty; a rule must allow at least one access right");
    if (std::uint64_t extra = allowed & ~handled)
        return fail_msg(field + ": allows " + mask_names(kind, extra) + ", which " + std::string(prefix) +
                        ".ruleset." + std::string(handled_field) + " does not handle");
    return allowed;
}

// Appends the names of `mask`'s bits to `out`.
void append_names(RightKind kind, std::uint64_t mask, std::vector<std::string>& out) {
    for (unsigned i = 0; i < 64; ++i)
        if (mask & (1ull << i)) out.push_back(bit_name(kind, 1ull << i));
}

}  // namespace

Result<int> probe_abi() {
    int version = abi::create_ruleset(nullptr, 0, abi::create_ruleset_version);
    if (version >= 0) return version;
    // ENOSYS: not built in; EOPNOTSUPP: built in but not enabled (the lsm= boot parameter).
    if (errno == ENOSYS || errno == EOPNOTSUPP) return 0;
    return fail_sys(errno, "landlock_create_ruleset", "LANDLOCK_CREATE_RULESET_VERSION");
}

Result<LandlockPlan> prepare_landlock(const spec::Landlock& config, int abi) {
    LandlockPlan plan;
    plan.abi = abi;
    // The proposal's disableBestEffort defaults to false (best effort); husk's default is strict, so only an
    // explicit false opts into dropping what the kernel lacks.
    plan.best_effort = config.disable_best_effort == false;

    const std::string ruleset = std::string(prefix) + ".ruleset";
    const std::uint64_t handled_fs =
        TRY(resolve(RightKind::fs, config.handled_access_fs, ruleset + ".handledAccessFS"));
    const std::uint64_t handled_net =
        TRY(resolve(RightKind::network, config.handled_access_network, ruleset + ".handledAccessNetwork"));
    const std::uint64_t scoped = TRY(resolve(RightKind::scope, config.scoped, ruleset + ".scoped"));
    if (handled_fs == 0 && handled_net == 0 && scoped == 0)
        return fail_msg(ruleset + ": handles no access right and no scope, so Landlock would restrict nothing");

    // What the kernel cannot enforce: everything when Landlock is absent, else what its ABI predates.
    const std::uint64_t fs_ok = enforceable(RightKind::fs, handled_fs, abi);
    const std::uint64_t net_ok = enforceable(RightKind::network, handled_net, abi);
    const std::uint64_t scoped_ok = enforceable(RightKind::scope, scoped, abi);
    const bool lacking = fs_ok != handled_fs || net_ok != handled_net || scoped_ok != scoped;
    if (lacking && !plan.best_effort) {
        if (abi <= 0)
            return fail_msg(std::string(prefix) +
                            ": the kernel has no Landlock (not built in, or not enabled at boot: see the lsm= "
                            "kernel parameter); set \"disableBestEffort\": false to run without it");
        std::string missing;
        for (auto [kind, mask] : {std::pair{RightKind::fs, handled_fs & ~fs_ok},
                                  std::pair{RightKind::network, handled_net & ~net_ok},
                                  std::pair{RightKind::scope, scoped & ~scoped_ok}}) {
            if (mask == 0) continue;
            if (!missing.empty()) missing += ", ";
            missing += mask_names(kind, mask, WithAbi::yes);
        }
        return fail_msg(std::string(prefix) + ": the kernel's Landlock ABI " + std::to_string(abi) +
                        " cannot enforce: " + missing + "; set \"disableBestEffort\": false to drop them");
    }
    append_names(RightKind::fs, handled_fs & ~fs_ok, plan.dropped);
    append_names(RightKind::network, handled_net & ~net_ok, plan.dropped);
    append_names(RightKind::scope, scoped & ~scoped_ok, plan.dropped);
    plan.handled_fs = fs_ok;
    plan.handled_net = net_ok;
    plan.scoped = scoped_ok;

    // Rules are checked against what was asked (a config error whatever the kernel), then trimmed to what
    // is enforced; a rule left allowing nothing is skipped, as the kernel would refuse it (ENOMSG).
    const std::string rules = std::string(prefix) + ".rules";
    for (std::size_t i = 0; i < config.path_beneath.size(); ++i) {
        const auto& rule = config.path_beneath[i];
        const std::string field = indexed(rules + ".pathBeneath", i);
        const std::uint64_t allowed = TRY(resolve_allowed(RightKind::fs, rule.allowed_access, handled_fs,
                                                          field + ".allowedAccess", "handledAccessFS"));
        for (std::size_t j = 0; j < rule.paths.size(); ++j) {
            const std::string path_field = indexed(field + ".paths", j);
            if (rule.paths[j].empty() || rule.paths[j][0] != '/')
                return fail_msg(path_field + ": \"" + rule.paths[j] + "\" is not an absolute path in the container");
            if (allowed & fs_ok) plan.path_rules.push_back({allowed & fs_ok, rule.paths[j], path_field});
        }
    }
    for (std::size_t i = 0; i < config.net_port.size(); ++i) {
        const auto& rule = config.net_port[i];
        const std::string field = indexed(rules + ".netPort", i);
        const std::uint64_t allowed = TRY(resolve_allowed(RightKind::network, rule.allowed_access, handled_net,
                                                          field + ".allowedAccess", "handledAccessNetwork"));
        for (std::size_t j = 0; j < rule.ports.size(); ++j)
            if (allowed & net_ok)
                plan.port_rules.push_back({allowed & net_ok, rule.ports[j], indexed(field + ".ports", j)});
    }

    // Best effort on a kernel without Landlock, or with none of the asked rights: nothing to enforce.
    plan.enforce = abi > 0 && (plan.handled_fs != 0 || plan.handled_net != 0 || plan.scoped != 0);
    return plan;
}

}  // namespace husk::landlock
