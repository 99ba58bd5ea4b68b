#include "rlimit/rlimits.hpp"

#include <linux/capability.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdint>
#include <string>
#include <string_view>

namespace husk::rlimit {
namespace {

struct Known {
    const char* name;
    int resource;
};

// getrlimit(2): every resource Linux defines.
constexpr std::array<Known, 16> known = {{
    {"RLIMIT_AS", RLIMIT_AS},
    {"RLIMIT_CORE", RLIMIT_CORE},
    {"RLIMIT_CPU", RLIMIT_CPU},
    {"RLIMIT_DATA", RLIMIT_DATA},
    {"RLIMIT_FSIZE", RLIMIT_FSIZE},
    {"RLIMIT_LOCKS", RLIMIT_LOCKS},
    {"RLIMIT_MEMLOCK", RLIMIT_MEMLOCK},
    {"RLIMIT_MSGQUEUE", RLIMIT_MSGQUEUE},
    {"RLIMIT_NICE", RLIMIT_NICE},
    {"RLIMIT_NOFILE", RLIMIT_NOFILE},
    {"RLIMIT_NPROC", RLIMIT_NPROC},
    {"RLIMIT_RSS", RLIMIT_RSS},
    {"RLIMIT_RTPRIO", RLIMIT_RTPRIO},
    {"RLIMIT_RTTIME", RLIMIT_RTTIME},
    {"RLIMIT_SIGPENDING", RLIMIT_SIGPENDING},
    {"RLIMIT_STACK", RLIMIT_STACK},
}};

const Known* find(std::string_view name) {
    for (const Known& k : known)
        if (name == k.name) return &k;
    return nullptr;
}

// Whether husk may raise a hard limit: CAP_SYS_RESOURCE in its own effective set (setrlimit(2)).
Result<bool> may_raise_hard_limits() {
    __user_cap_header_struct header = {_LINUX_CAPABILITY_VERSION_3, 0};
    __user_cap_data_struct data[2] = {};
    if (::syscall(SYS_capget, &header, data) != 0) return fail_sys(errno, "capget");
    return (data[CAP_TO_INDEX(CAP_SYS_RESOURCE)].effective & CAP_TO_MASK(CAP_SYS_RESOURCE)) != 0;
}

std::string text(rlim_t value) { return value == RLIM_INFINITY ? "unlimited" : std::to_string(value); }

// The spec requires getrlimit on the type to succeed; husk's own value is also the ceiling.
Result<void> check_hard_limit(const std::string& where, const Known& limit, rlim_t hard, bool privileged) {
    ::rlimit own = {};
    if (::getrlimit(limit.resource, &own) != 0) return fail_sys(errno, "getrlimit", limit.name);
    if (hard > own.rlim_max && !privileged)
        return fail_msg(where + ": hard limit " + text(hard) + " for " + limit.name + " exceeds husk's own hard limit " +
                        text(own.rlim_max) + " and raising it needs CAP_SYS_RESOURCE");
    return {};
}

}  // namespace

Result<RlimitPlan> prepare_rlimits(const spec::Process& process, std::optional<rlim_t> address_space) {
    RlimitPlan plan;
    const bool privileged = TRY(may_raise_hard_limits());
    for (std::size_t i = 0; i < process.rlimits.size(); ++i) {
        const spec::Rlimit& limit = process.rlimits[i];
        const std::string where = "process.rlimits[" + std::to_string(i) + "]";
        const Known* known_limit = find(limit.type);
        if (!known_limit) return fail_msg(where + ".type: unknown rlimit \"" + limit.type + "\"");
        for (std::size_t j = 0; j < i; ++j)
            if (process.rlimits[j].type == limit.type)
                return fail_msg(where + ".type: duplicate rlimit \"" + limit.type + "\" (also process.rlimits[" +
                                std::to_string(j) + "])");
        if (limit.soft > limit.hard)
            return fail_msg(where + ": soft limit " + text(limit.soft) + " for " + limit.type +
                            " exceeds its hard limit " + text(limit.hard));
        if (address_space && known_limit->resource == RLIMIT_AS)
            return fail_msg(where + ": RLIMIT_AS is also set by run.husk.address-space (--address-space); keep one");
        TRY(check_hard_limit(where, *known_limit, limit.hard, privileged));
        plan.entries.push_back({known_limit->resource, known_limit->name, {limit.soft, limit.hard}});
    }
    if (address_space) {
        const Known& as = *find("RLIMIT_AS");
        TRY(check_hard_limit("run.husk.address-space", as, *address_space, privileged));
        plan.entries.push_back({as.resource, as.name, {*address_space, *address_space}});
    }
    return plan;
}

Result<void> apply_rlimits(const RlimitPlan& plan) noexcept {
    for (const RlimitEntry& entry : plan.entries)
        if (::prlimit(0, static_cast<__rlimit_resource>(entry.resource), &entry.value, nullptr) != 0)
            return fail_sys(errno, "setrlimit", entry.name);
    return {};
}

}  // namespace husk::rlimit
