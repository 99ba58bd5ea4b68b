// prepare_credentials: capability names → numbers (libcap's cap_from_name), checked against the
// running kernel and against the rules capset(2) enforces, so the child has nothing left to decide.
#include "caps/credentials.hpp"

#include <sys/capability.h>

#include <array>
#include <cctype>
#include <charconv>
#include <memory>
#include <optional>
#include <string_view>

#include "base/fs.hpp"

namespace husk::caps {
namespace {

// The kernel's highest capability number; probing, never guessing from the kernel version.
Result<int> read_last_cap() {
    std::string text = TRY(read_file("/proc/sys/kernel/cap_last_cap"));
    int last = -1;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), last);
    if (ec != std::errc() || last < 0 || last > 63)
        return fail_msg("/proc/sys/kernel/cap_last_cap: unexpected content \"" + text + "\"");
    return last;
}

// "CAP_" followed by upper-case letters, digits and underscores: config.json spells names as
// capabilities(7) does. cap_from_name alone would also take "cap_chown" or a bare number.
bool is_capability_spelling(std::string_view name) {
    if (!name.starts_with("CAP_") || name.size() == 4) return false;
    for (char c : name.substr(4))
        if (!(std::isupper(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '_'))
            return false;
    return true;
}

struct NamedSet {
    const char* json_name;  // "bounding"
    const std::optional<std::vector<std::string>>* names;
    std::uint64_t CapabilitySets::*bits;
};

Result<void> resolve_set(const NamedSet& set, int last_cap, CapabilitySets& out) {
    if (!*set.names) return {};
    const auto& names = **set.names;
    for (std::size_t i = 0; i < names.size(); ++i) {
        auto where = [&] { return "process.capabilities." + std::string(set.json_name) + "[" + std::to_string(i) + "]"; };
        cap_value_t value = 0;
        if (!is_capability_spelling(names[i]) || cap_from_name(names[i].c_str(), &value) != 0)
            return fail_msg(where() + ": unknown capability \"" + names[i] + "\"");
        if (value < 0 || value > last_cap)
            return fail_msg(where() + ": capability \"" + names[i] +
                            "\" is not known to the running kernel (cap_last_cap is " + std::to_string(last_cap) + ")");
        out.*set.bits |= std::uint64_t{1} << value;
    }
    return {};
}

// The first entry of `names` whose bit is in `offending`, for an error that points at the config.
Result<void> require_subset(const std::optional<std::vector<std::string>>& names, const char* json_name,
                            std::uint64_t subset, std::uint64_t superset, const char* rule) {
    std::uint64_t offending = subset & ~superset;
    if (offending == 0) return {};
    for (std::size_t i = 0; i < names->size(); ++i) {
        cap_value_t value = 0;
        cap_from_name((*names)[i].c_str(), &value);
        if (offending & (std::uint64_t{1} << value))
            return fail_msg("process.capabilities." + std::string(json_name) + "[" + std::to_string(i) + "]: \"" +
                            (*names)[i] + "\" " + rule);
    }
    return fail_msg("process.capabilities." + std::string(json_name) + ": " + rule);
}

// "CAP_CHOWN" for every number the kernel knows; numbers libcap has no name for get "CAP_<n>".
std::vector<std::string> capability_names(int last_cap) {
    std::vector<std::string> names;
    for (int value = 0; value <= last_cap; ++value) {
        std::unique_ptr<char, int (*)(void*)> name(cap_to_name(value), cap_free);
        std::string text = name ? name.get() : "";
        if (text.empty() || std::isdigit(static_cast<unsigned char>(text[0]))) text = "cap_" + std::to_string(value);
        for (char& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
        names.push_back(std::move(text));
    }
    return names;
}

}  // namespace

Result<CredentialsPlan> prepare_credentials(const spec::Process& process) {
    CredentialsPlan plan;
    plan.last_cap = TRY(read_last_cap());
    plan.names = capability_names(plan.last_cap);

    const spec::Capabilities& caps = process.capabilities;
    const std::array<NamedSet, 5> sets = {{
        {"bounding", &caps.bounding, &CapabilitySets::bounding},
        {"effective", &caps.effective, &CapabilitySets::effective},
        {"inheritable", &caps.inheritable, &CapabilitySets::inheritable},
        {"permitted", &caps.permitted, &CapabilitySets::permitted},
        {"ambient", &caps.ambient, &CapabilitySets::ambient},
    }};
    for (const NamedSet& set : sets) TRY(resolve_set(set, plan.last_cap, plan.sets));

    // capset(2): "the new effective set must be a subset of the new permitted set"; "the new inheritable
    // set must be a subset of the existing inheritable set and the capability bounding set" (the child's
    // inheritable set is husk's, normally empty, and its bounding set is dropped to `bounding` first).
    // PR_CAP_AMBIENT_RAISE: a capability must be both permitted and inheritable.
    const CapabilitySets& s = plan.sets;
    TRY(require_subset(caps.effective, "effective", s.effective, s.permitted, "is not in the permitted set"));
    TRY(require_subset(caps.inheritable, "inheritable", s.inheritable, s.bounding, "is not in the bounding set"));
    // PR_CAP_AMBIENT_RAISE needs a capability both permitted and inheritable. runc's default spec lists ambient
    // capabilities without an inheritable set: runc tries each, warns for those the kernel refuses and goes on
    // (the process gets fewer privileges than asked, never more). For uid 0 the ambient set has no effect anyway:
    // execve(2) gives root every capability of its bounding set (capabilities(7), "Capabilities and execution of
    // programs by root"), so nothing is worth a warning there.
    const std::uint64_t raisable = s.permitted & s.inheritable;
    if (process.user.uid != 0)
        for (int cap = 0; cap <= plan.last_cap; ++cap)
            if ((s.ambient >> cap & 1) && !(raisable >> cap & 1))
                plan.ambient_dropped.push_back(plan.names[static_cast<std::size_t>(cap)]);
    plan.sets.ambient &= raisable;

    plan.uid = process.user.uid;
    plan.gid = process.user.gid;
    plan.additional_gids.assign(process.user.additional_gids.begin(), process.user.additional_gids.end());
    if (process.user.umask) {
        if (*process.user.umask > 0777)
            return fail_msg("process.user.umask: " + std::to_string(*process.user.umask) +
                            " is not a file mode (0 to 0777)");
        plan.umask = static_cast<mode_t>(*process.user.umask);
    }
    return plan;
}

}  // namespace husk::caps
