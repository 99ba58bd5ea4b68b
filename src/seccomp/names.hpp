// The names config-linux.md "Seccomp" uses for actions, operators, architectures and flags, mapped to
// libseccomp's and the kernel's values; `husk features` lists them from here, so the two cannot drift.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace husk::seccomp {

enum class ActionKind { kill_process, kill_thread, trap, errno_ret, trace, allow, log, notify };

struct ActionName {
    std::string_view name;  // "SCMP_ACT_KILL"
    ActionKind kind;
};
struct OperatorName {
    std::string_view name;  // "SCMP_CMP_MASKED_EQ"
    int op;                 // enum scmp_compare
};
struct ArchName {
    std::string_view name;  // "SCMP_ARCH_X86_64"
    std::uint32_t token;    // SCMP_ARCH_* (the AUDIT_ARCH_* value, except for x32)
};
struct FlagName {
    std::string_view name;  // "SECCOMP_FILTER_FLAG_LOG"
    std::uint32_t bit;      // the seccomp(2) flag
};

std::span<const ActionName> action_names();
std::span<const OperatorName> operator_names();
std::span<const ArchName> arch_names();
std::span<const FlagName> flag_names();

std::optional<ActionKind> find_action(std::string_view name);
std::optional<int> find_operator(std::string_view name);
std::optional<std::uint32_t> find_arch(std::string_view name);
std::optional<std::uint32_t> find_flag(std::string_view name);
// The config name of a libseccomp architecture token ("SCMP_ARCH_X86_64"), or "" when unknown.
std::string_view arch_name(std::uint32_t token);

// Flags the running kernel accepts, probed as libseccomp does: seccomp(SECCOMP_SET_MODE_FILTER, flag, NULL)
// fails with EFAULT (the NULL program) for a flag it knows and EINVAL for one it does not.
std::vector<std::string> supported_flag_names();
// Whether the running kernel implements an action kind (seccomp(SECCOMP_GET_ACTION_AVAIL), Linux 4.14;
// true when the kernel is too old to answer).
bool kernel_has_action(ActionKind kind);

}  // namespace husk::seccomp
