// Resolving linux.seccomp (config-linux.md "Seccomp"). Rules that libseccomp would merge or drop silently are
// resolved here to the strictest of them (and recorded) or refused, so that the filter never means less than
// the profile says.
#include "seccomp/profile.hpp"

#include <array>
#include <cerrno>
#include <map>
#include <optional>
#include <string_view>

#include "base/quote.hpp"
#include "seccomp/kernel.hpp"

namespace husk::seccomp {
namespace {

constexpr std::string_view kPath = "linux.seccomp";
constexpr unsigned kMaxErrno = 4095;          // the kernel caps SECCOMP_RET_ERRNO data at MAX_ERRNO
constexpr std::size_t kMaxAlternatives = 256;  // per entry: a bound on the OR expansion of args

std::string entry_path(std::size_t entry) { return std::string(kPath) + ".syscalls[" + std::to_string(entry) + "]"; }
Error at(const std::string& path, std::string_view text) { return Error::msg(path + ": " + std::string(text)); }

std::string library_version() {
    const scmp_version* v = seccomp_version();
    return std::to_string(v->major) + "." + std::to_string(v->minor) + "." + std::to_string(v->micro);
}

// `action` + `errnoRet` → libseccomp's action value. The spec: errnoRet defaults to EPERM, and an errnoRet
// on an action that takes none "MUST" be an error.
Result<Action> resolve_action(const std::string& name, const std::optional<std::uint32_t>& errno_ret,
                              const std::string& action_path, const std::string& errno_path) {
    auto kind = find_action(name);
    if (!kind) return fail(at(action_path, "unknown action " + quoted(name)));
    // Probed rather than left to the load in the child, which would only say EINVAL.
    if (!kernel_has_action(*kind)) return fail(at(action_path, name + " is not available in this kernel"));
    std::uint32_t data = errno_ret.value_or(EPERM);
    switch (*kind) {
        case ActionKind::errno_ret:
            if (data > kMaxErrno) return fail(at(errno_path, std::to_string(data) + " is not an errno (0-4095)"));
            return Action{*kind, SCMP_ACT_ERRNO(data)};
        case ActionKind::trace:
            if (data > SECCOMP_RET_DATA) return fail(at(errno_path, std::to_string(data) + " does not fit in 16 bits"));
            return Action{*kind, SCMP_ACT_TRACE(data)};
        default: break;
    }
    if (errno_ret) return fail(at(errno_path, name + " takes no errno (only SCMP_ACT_ERRNO and SCMP_ACT_TRACE do)"));
    switch (*kind) {
        case ActionKind::kill_process: return Action{*kind, SCMP_ACT_KILL_PROCESS};
        case ActionKind::kill_thread: return Action{*kind, SCMP_ACT_KILL_THREAD};
        case ActionKind::trap: return Action{*kind, SCMP_ACT_TRAP};
        case ActionKind::allow: return Action{*kind, SCMP_ACT_ALLOW};
        case ActionKind::log: return Action{*kind, SCMP_ACT_LOG};
        default: return Action{*kind, SCMP_ACT_NOTIFY};
    }
}

bool allows(ActionKind kind) { return kind == ActionKind::allow || kind == ActionKind::log; }

// args → alternatives. libseccomp ANDs the comparisons of one rule but refuses two on the same argument
// (EINVAL). Several SCMP_CMP_EQ on one index can only mean "any of these values" (they could never all hold),
// so they become alternatives (OR), each combined with every other comparison (AND). Any other repetition
// (GE + LE as a range, two MASKED_EQ) cannot be expressed: runc then splits *every* comparison of the entry
// into its own rule, which silently widens it; husk refuses it instead.
Result<std::vector<std::vector<scmp_arg_cmp>>> resolve_args(const spec::Seccomp::Syscall& syscall, const std::string& path) {
    std::array<std::vector<scmp_arg_cmp>, 6> by_index;
    for (std::size_t k = 0; k < syscall.args.size(); ++k) {
        const auto& arg = syscall.args[k];
        std::string arg_path = path + ".args[" + std::to_string(k) + "]";
        if (arg.index >= by_index.size())
            return fail(at(arg_path + ".index", std::to_string(arg.index) + " is not a syscall argument index (0-5)"));
        auto op = find_operator(arg.op);
        if (!op) return fail(at(arg_path + ".op", "unknown operator " + quoted(arg.op)));
        // MASKED_EQ: (argument & value) == valueTwo, as libseccomp's datum_a/datum_b and runc have it.
        scmp_arg_cmp cmp{arg.index, static_cast<scmp_compare>(*op), arg.value, arg.value_two};
        auto& slot = by_index[arg.index];
        bool duplicate = false;
        for (const auto& seen : slot)
            duplicate |= seen.op == cmp.op && seen.datum_a == cmp.datum_a && seen.datum_b == cmp.datum_b;
        if (!duplicate) slot.push_back(cmp);
    }
    std::vector<std::vector<scmp_arg_cmp>> alternatives;
    if (syscall.args.empty()) return alternatives;
    alternatives.emplace_back();
    for (std::size_t index = 0; index < by_index.size(); ++index) {
        const auto& slot = by_index[index];
        if (slot.empty()) continue;
        if (slot.size() > 1)
            for (const auto& cmp : slot)
                if (cmp.op != SCMP_CMP_EQ)
                    return fail(at(path + ".args", "argument " + std::to_string(index) + " is compared " +
                                   std::to_string(slot.size()) + " times, not all with SCMP_CMP_EQ; libseccomp cannot "
                                   "require several comparisons of one argument (split the entry)"));
        std::vector<std::vector<scmp_arg_cmp>> next;
        for (const auto& alternative : alternatives)
            for (const auto& cmp : slot) {
                next.push_back(alternative);
                next.back().push_back(cmp);
            }
        alternatives = std::move(next);
        if (alternatives.size() > kMaxAlternatives)
            return fail(at(path + ".args", "too many combinations of SCMP_CMP_EQ values (more than 256 rules)"));
    }
    return alternatives;
}

// How strict an action is: the kernel's own precedence when several filters answer one call (seccomp(2),
// "If multiple filters exist"): KILL_PROCESS > KILL_THREAD > TRAP > ERRNO > USER_NOTIF > TRACE > LOG > ALLOW.
// NOTIFY and TRACE both hand the call to another party; the kernel ranks the agent above the tracer, and
// without one either fails the call with ENOSYS.
int strictness(ActionKind kind) {
    switch (kind) {
        case ActionKind::kill_process: return 7;
        case ActionKind::kill_thread: return 6;
        case ActionKind::trap: return 5;
        case ActionKind::errno_ret: return 4;
        case ActionKind::notify: return 3;
        case ActionKind::trace: return 2;
        case ActionKind::log: return 1;
        case ActionKind::allow: return 0;
    }
    return 0;
}

std::string describe(const spec::Seccomp& seccomp, const Rule& rule) {
    std::string text = "syscalls[" + std::to_string(rule.entry) + "]: " + seccomp.syscalls[rule.entry].action;
    if (rule.action.kind == ActionKind::errno_ret || rule.action.kind == ActionKind::trace)
        text += " (errnoRet " + std::to_string(rule.action.value & SECCOMP_RET_DATA) + ")";
    return text;
}

// Unconditional rules for one syscall with different actions: libseccomp would keep one of them silently.
// husk keeps the strictest (the first listed among equals, e.g. two errno values), so the filter is never
// weaker than any rule asks, and records what it dropped. Marks the dropped rules in `dropped`.
void resolve_unconditional(const spec::Seccomp& seccomp, const std::vector<Rule>& rules,
                           const std::vector<std::size_t>& group, std::vector<bool>& dropped, Profile& out) {
    std::optional<std::size_t> kept;
    bool differ = false;
    for (std::size_t k : group) {
        if (!rules[k].alternatives.empty()) continue;
        if (!kept) {
            kept = k;
            continue;
        }
        differ |= rules[k].action.value != rules[*kept].action.value;
        if (strictness(rules[k].action.kind) > strictness(rules[*kept].action.kind)) kept = k;
    }
    if (!differ) return;
    SeccompResolution resolution{rules[*kept].name, describe(seccomp, rules[*kept]), {}};
    for (std::size_t k : group) {
        if (!rules[k].alternatives.empty() || rules[k].action.value == rules[*kept].action.value) continue;
        dropped[k] = true;
        resolution.dropped.push_back(describe(seccomp, rules[k]));
    }
    out.resolutions.push_back(std::move(resolution));
}

// What is left after that and still conflicts involves a conditional rule: libseccomp would keep a single
// action for the syscall whatever the conditions say, and husk cannot know which one was meant.
Result<void> check_conflicts(const std::vector<Rule>& rules, const std::vector<std::size_t>& group,
                             const std::vector<bool>& dropped) {
    for (std::size_t i = 0; i < group.size(); ++i) {
        const Rule& rule = rules[group[i]];
        if (dropped[group[i]]) continue;
        for (std::size_t j = 0; j < i; ++j) {
            const Rule& other = rules[group[j]];
            if (dropped[group[j]] || other.action.value == rule.action.value) continue;
            if (other.alternatives.empty() || rule.alternatives.empty())
                return fail(at(entry_path(rule.entry), quoted(rule.name) + " also has a different action in syscalls[" +
                               std::to_string(other.entry) + "]; one of them is conditional, and libseccomp would "
                               "keep only one action"));
        }
    }
    return {};
}

// Resolves the conflicts between the rules for each syscall, then keeps what libseccomp must get: the rules
// not dropped whose action is not the default (libseccomp refuses those with EACCES; they change nothing).
Result<void> settle_rules(const spec::Seccomp& seccomp, std::vector<Rule> rules, Profile& out) {
    std::map<int, std::vector<std::size_t>> by_number;
    for (std::size_t k = 0; k < rules.size(); ++k) by_number[rules[k].number].push_back(k);
    std::vector<bool> dropped(rules.size(), false);
    for (const auto& [number, group] : by_number) {
        resolve_unconditional(seccomp, rules, group, dropped, out);
        TRY(check_conflicts(rules, group, dropped));
    }
    for (std::size_t k = 0; k < rules.size(); ++k) {
        if (dropped[k]) continue;
        if (rules[k].action.kind == ActionKind::notify) out.uses_notify = true;
        if (rules[k].action.value != out.default_action.value) out.rules.push_back(std::move(rules[k]));
    }
    return {};
}

Result<void> resolve_flags(const spec::Seccomp& seccomp, Profile& out) {
    for (std::size_t k = 0; k < seccomp.flags.size(); ++k) {
        std::string path = std::string(kPath) + ".flags[" + std::to_string(k) + "]";
        auto bit = find_flag(seccomp.flags[k]);
        if (!bit) return fail(at(path, "unknown flag " + quoted(seccomp.flags[k])));
        // seccomp(2): WAIT_KILLABLE_RECV without NEW_LISTENER is EINVAL.
        if (*bit == kFlagWaitKillableRecv && !out.uses_notify)
            return fail(at(path, seccomp.flags[k] + " needs a rule with SCMP_ACT_NOTIFY"));
        out.flags |= *bit;
    }
    return {};
}

Result<void> resolve_listener(const spec::Seccomp& seccomp, const Profile& profile) {
    std::string path(kPath);
    // "listenerMetadata ... MUST NOT be set if listenerPath is not set."
    if (!seccomp.listener_metadata.empty() && seccomp.listener_path.empty())
        return fail(at(path + ".listenerMetadata", "is set without listenerPath"));
    if (profile.uses_notify && seccomp.listener_path.empty())
        return fail(at(path + ".listenerPath", "is required when a rule uses SCMP_ACT_NOTIFY (no agent would get the fd)"));
    return {};
}

}  // namespace

bool default_denies(const Action& default_action) {
    switch (default_action.kind) {
        case ActionKind::errno_ret: return (default_action.value & SECCOMP_RET_DATA) != ENOSYS;
        case ActionKind::trap:
        case ActionKind::kill_thread:
        case ActionKind::kill_process: return true;
        default: return false;
    }
}

Result<Profile> resolve_profile(const spec::Seccomp& seccomp, const SeccompOptions& options) {
    Profile out;
    std::string path(kPath);
    out.default_action = TRY(resolve_action(seccomp.default_action, seccomp.default_errno_ret,
                                            path + ".defaultAction", path + ".defaultErrnoRet"));
    // The container process still talks to husk after loading the filter (it hands over the listener fd),
    // and those calls would wait for an agent that cannot have the fd yet. runc refuses this too.
    if (out.default_action.kind == ActionKind::notify)
        return fail(at(path + ".defaultAction", "SCMP_ACT_NOTIFY cannot be the default action"));
    for (std::size_t k = 0; k < seccomp.architectures.size(); ++k) {
        auto token = find_arch(seccomp.architectures[k]);
        if (!token)
            return fail(at(path + ".architectures[" + std::to_string(k) + "]",
                           "unknown architecture " + quoted(seccomp.architectures[k])));
        out.architectures.push_back(*token);
    }
    std::vector<Rule> rules;
    for (std::size_t i = 0; i < seccomp.syscalls.size(); ++i) {
        const auto& syscall = seccomp.syscalls[i];
        std::string entry = entry_path(i);
        Action action = TRY(resolve_action(syscall.action, syscall.errno_ret, entry + ".action", entry + ".errnoRet"));
        auto alternatives = TRY(resolve_args(syscall, entry));
        bool redundant = action.value == out.default_action.value;
        for (std::size_t j = 0; j < syscall.names.size(); ++j) {
            const std::string& name = syscall.names[j];
            std::string name_path = entry + ".names[" + std::to_string(j) + "]";
            if (action.kind == ActionKind::notify && name == "sendmsg")
                return fail(at(name_path, "SCMP_ACT_NOTIFY cannot apply to \"sendmsg\": husk's container process "
                                          "sends the listener fd to husk with it after loading the filter"));
            int number = seccomp_syscall_resolve_name(name.c_str());
            if (number == __NR_SCMP_ERROR) {
                bool harmless = redundant || (allows(action.kind) && !allows(out.default_action.kind));
                if (options.unknown_syscalls == UnknownSyscalls::skip_allowed && harmless) {
                    out.skipped_names.push_back(name);
                    continue;
                }
                return fail(at(name_path, "unknown syscall " + quoted(name) + " (libseccomp " + library_version() +
                                              " does not know it)"));
            }
            out.known_names.push_back(name);
            rules.push_back(Rule{i, name, number, action, alternatives});
        }
    }
    TRY(settle_rules(seccomp, std::move(rules), out));
    TRY(resolve_flags(seccomp, out));
    TRY(resolve_listener(seccomp, out));
    return out;
}

}  // namespace husk::seccomp
