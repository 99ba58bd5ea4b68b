#include "spec/validate.hpp"

#include <algorithm>
#include <array>
#include <set>
#include <string>

#include "spec/validate_internal.hpp"

namespace husk::spec {
namespace {

using detail::check_absolute;
using detail::quoted;

bool is_digits(std::string_view text) {
    return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// SemVer 2.0.0 "1.<0-3>.<patch>" with an optional pre-release ("1.0.2-dev", what runc 1.1 writes) or
// build suffix. Minor versions above 3 may carry fields husk would silently ignore, so they are refused.
bool is_supported_version(std::string_view version) {
    std::size_t suffix = version.find_first_of("-+");
    if (suffix != std::string_view::npos && suffix + 1 == version.size()) return false;
    std::string_view core = version.substr(0, suffix);
    if (core.size() < 5 || core.substr(0, 2) != "1." || core[2] < '0' || core[2] > '3' || core[3] != '.')
        return false;
    std::string_view patch = core.substr(4);
    return is_digits(patch) && (patch.size() == 1 || patch[0] != '0');
}

Result<void> check_version(const std::string& version) {
    if (version.empty()) return fail_msg("ociVersion: must not be empty");
    if (!is_supported_version(version))
        return fail_msg("ociVersion: unsupported version " + quoted(version) + " (husk supports 1.0.x to 1.3.x)");
    return {};
}

// Fail closed: a requested feature husk would ignore must stop the container, not weaken it.
Result<void> check_unsupported(const std::vector<std::string>& unsupported) {
    if (unsupported.empty()) return {};
    std::string list;
    for (const std::string& path : unsupported) list += (list.empty() ? "" : ", ") + path;
    return fail_msg("unsupported configuration: " + list + " (husk does not implement " +
                    (unsupported.size() == 1 ? "this" : "these") + " yet)");
}

// husk has no SELinux support; ignoring a requested label would run the container less confined. (AppArmor
// profiles are applied: apparmor/apparmor.hpp.)
Result<void> check_lsm(const Spec& spec) {
    auto refuse = [](const std::string& field, const std::string& value, const char* lsm) {
        return fail_msg(field + ": husk has no " + lsm + " support (got " + quoted(value) + ")");
    };
    if (spec.process && !spec.process->selinux_label.empty())
        return refuse("process.selinuxLabel", spec.process->selinux_label, "SELinux");
    if (spec.linux && !spec.linux->mount_label.empty())
        return refuse("linux.mountLabel", spec.linux->mount_label, "SELinux");
    return {};
}

// Names only: "CAP_" and upper-case letters, digits, '_'. The caps module resolves them against the
// running kernel and libcap.
Result<void> check_capability_set(const std::optional<std::vector<std::string>>& set, const std::string& field) {
    if (!set) return {};
    for (std::size_t i = 0; i < set->size(); ++i) {
        const std::string& name = (*set)[i];
        bool ok = name.size() > 4 && name.starts_with("CAP_") &&
                  std::all_of(name.begin(), name.end(), [](char c) {
                      return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
                  });
        if (!ok)
            return fail_msg(field + "[" + std::to_string(i) + "]: invalid capability name " + quoted(name) +
                            " (expected CAP_ followed by upper-case letters, digits or _)");
    }
    return {};
}

// getrlimit(2): the 16 resources Linux defines.
constexpr std::array<std::string_view, 16> rlimit_names = {
    "RLIMIT_AS",      "RLIMIT_CORE",  "RLIMIT_CPU",    "RLIMIT_DATA",       "RLIMIT_FSIZE",  "RLIMIT_LOCKS",
    "RLIMIT_MEMLOCK", "RLIMIT_MSGQUEUE", "RLIMIT_NICE", "RLIMIT_NOFILE",     "RLIMIT_NPROC",  "RLIMIT_RSS",
    "RLIMIT_RTPRIO",  "RLIMIT_RTTIME", "RLIMIT_SIGPENDING", "RLIMIT_STACK"};

Result<void> check_rlimits(const std::vector<Rlimit>& rlimits) {
    std::set<std::string> seen;
    for (std::size_t i = 0; i < rlimits.size(); ++i) {
        const Rlimit& limit = rlimits[i];
        std::string field = "process.rlimits[" + std::to_string(i) + "]";
        if (std::find(rlimit_names.begin(), rlimit_names.end(), limit.type) == rlimit_names.end())
            return fail_msg(field + ".type: unknown rlimit " + quoted(limit.type));
        // config.md: "If rlimits contains duplicated entries with same type, the runtime MUST generate an error."
        if (!seen.insert(limit.type).second)
            return fail_msg(field + ".type: duplicate rlimit " + quoted(limit.type));
        if (limit.soft > limit.hard)
            return fail_msg(field + ": soft limit " + std::to_string(limit.soft) + " is above hard limit " +
                            std::to_string(limit.hard));
    }
    return {};
}

Result<void> check_process(const std::optional<Process>& process) {
    if (!process) return fail_msg("process: required property is missing");
    if (process->args.empty()) return fail_msg("process.args: must not be empty");
    TRY(check_absolute(process->cwd, "process.cwd"));
    const Capabilities& caps = process->capabilities;
    TRY(check_capability_set(caps.bounding, "process.capabilities.bounding"));
    TRY(check_capability_set(caps.effective, "process.capabilities.effective"));
    TRY(check_capability_set(caps.inheritable, "process.capabilities.inheritable"));
    TRY(check_capability_set(caps.permitted, "process.capabilities.permitted"));
    TRY(check_capability_set(caps.ambient, "process.capabilities.ambient"));
    TRY(check_rlimits(process->rlimits));
    // proc(5): oom_score_adj ranges from -1000 to 1000.
    if (process->oom_score_adj && (*process->oom_score_adj < -1000 || *process->oom_score_adj > 1000))
        return fail_msg("process.oomScoreAdj: must be between -1000 and 1000, got " +
                        std::to_string(*process->oom_score_adj));
    return {};
}

// Like runc: the hostname and domainname can only be set in a UTS namespace of the container's own.
Result<void> check_uts_names(const Spec& spec) {
    if (detail::find_namespace(spec, "uts")) return {};
    if (!spec.hostname.empty())
        return fail_msg("hostname: setting the hostname requires a uts namespace in linux.namespaces");
    if (!spec.domainname.empty())
        return fail_msg("domainname: setting the domainname requires a uts namespace in linux.namespaces");
    return {};
}

Result<void> check_mounts(const std::vector<Mount>& mounts) {
    for (std::size_t i = 0; i < mounts.size(); ++i) {
        std::string field = "mounts[" + std::to_string(i) + "]";
        TRY(check_absolute(mounts[i].destination, field + ".destination"));
        TRY(detail::check_id_mappings(mounts[i].uid_mappings, field + ".uidMappings"));
        TRY(detail::check_id_mappings(mounts[i].gid_mappings, field + ".gidMappings"));
    }
    return {};
}

Result<void> check_hook_list(const std::vector<Hook>& hooks, const char* name) {
    for (std::size_t i = 0; i < hooks.size(); ++i) {
        std::string field = std::string("hooks.") + name + "[" + std::to_string(i) + "]";
        TRY(check_absolute(hooks[i].path, field + ".path"));
        if (hooks[i].timeout && *hooks[i].timeout <= 0)
            return fail_msg(field + ".timeout: must be greater than 0, got " + std::to_string(*hooks[i].timeout));
    }
    return {};
}

Result<void> check_hooks(const Hooks& hooks) {
    TRY(check_hook_list(hooks.prestart, "prestart"));
    TRY(check_hook_list(hooks.create_runtime, "createRuntime"));
    TRY(check_hook_list(hooks.create_container, "createContainer"));
    TRY(check_hook_list(hooks.start_container, "startContainer"));
    TRY(check_hook_list(hooks.poststart, "poststart"));
    TRY(check_hook_list(hooks.poststop, "poststop"));
    return {};
}

}  // namespace

// husk's settings: every run.husk.* annotation must parse, and one this build does not know is refused rather
// than accepted and ignored: a limit the user believes in must not silently be absent. The flags of the command
// line win, and then the settings are checked together, however each was spelled.
static Result<HuskSettings> check_husk_settings(const Spec& spec, const HuskSettings& overrides) {
    HuskSettings husk = with_overrides(TRY(parse_husk_annotations(spec.annotations)), overrides);
    TRY(check_settings(husk));
    // With a terminal the container writes into a pty: its master goes to --console-socket, where husk cannot
    // count a byte, or to `husk run`'s relay (frontend/terminal_relay.hpp), which does not count them (fail closed).
    if (husk.output_limit && spec.process && spec.process->terminal)
        return fail_msg("run.husk.output-limit (--output-limit): cannot be enforced with process.terminal true (the "
                        "container writes to its pty, which husk does not count)");
    return husk;
}

Result<HuskSettings> validate(const Spec& spec, const HuskSettings& overrides) {
    TRY(check_version(spec.oci_version));
    HuskSettings husk = TRY(check_husk_settings(spec, overrides));
    TRY(check_unsupported(spec.unsupported));
    TRY(check_lsm(spec));
    if (spec.root.path.empty()) return fail_msg("root.path: must not be empty");
    TRY(check_process(spec.process));
    if (spec.linux) TRY(detail::validate_linux(*spec.linux));
    TRY(check_uts_names(spec));
    TRY(check_mounts(spec.mounts));
    TRY(check_hooks(spec.hooks));
    return husk;
}

namespace detail {

Result<void> check_absolute(std::string_view path, const std::string& field) {
    if (path.starts_with('/')) return {};
    return fail_msg(field + ": must be an absolute path, got " + quoted(path));
}

Result<void> check_id_mappings(const std::vector<IdMapping>& mappings, const std::string& field) {
    for (std::size_t i = 0; i < mappings.size(); ++i)
        if (mappings[i].size == 0) return fail_msg(field + "[" + std::to_string(i) + "].size: must be greater than 0");
    return {};
}

const Namespace* find_namespace(const Spec& spec, std::string_view type) {
    if (!spec.linux) return nullptr;
    for (const Namespace& ns : spec.linux->namespaces)
        if (ns.type == type) return &ns;
    return nullptr;
}

}  // namespace detail
}  // namespace husk::spec
