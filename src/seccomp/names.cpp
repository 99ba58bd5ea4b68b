#include "seccomp/names.hpp"

#include <linux/seccomp.h>
#include <seccomp.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

#include "seccomp/kernel.hpp"

namespace husk::seccomp {
namespace {

// config-linux.md "Seccomp", syscalls[].action. SCMP_ACT_KILL is libseccomp's old name for KILL_THREAD.
constexpr ActionName actions[] = {
    {"SCMP_ACT_KILL", ActionKind::kill_thread},   {"SCMP_ACT_KILL_PROCESS", ActionKind::kill_process},
    {"SCMP_ACT_KILL_THREAD", ActionKind::kill_thread}, {"SCMP_ACT_TRAP", ActionKind::trap},
    {"SCMP_ACT_ERRNO", ActionKind::errno_ret},    {"SCMP_ACT_TRACE", ActionKind::trace},
    {"SCMP_ACT_ALLOW", ActionKind::allow},        {"SCMP_ACT_LOG", ActionKind::log},
    {"SCMP_ACT_NOTIFY", ActionKind::notify},
};

// syscalls[].args[].op.
constexpr OperatorName operators[] = {
    {"SCMP_CMP_NE", SCMP_CMP_NE}, {"SCMP_CMP_LT", SCMP_CMP_LT}, {"SCMP_CMP_LE", SCMP_CMP_LE},
    {"SCMP_CMP_EQ", SCMP_CMP_EQ}, {"SCMP_CMP_GE", SCMP_CMP_GE}, {"SCMP_CMP_GT", SCMP_CMP_GT},
    {"SCMP_CMP_MASKED_EQ", SCMP_CMP_MASKED_EQ},
};

// architectures: the list config-linux.md gives (as of libseccomp 2.5.0), all known to libseccomp 2.5.4.
// Newer names (SCMP_ARCH_LOONGARCH64, SCMP_ARCH_M68K, SCMP_ARCH_SH) need libseccomp 2.6 and are refused.
constexpr ArchName archs[] = {
    {"SCMP_ARCH_X86", SCMP_ARCH_X86},           {"SCMP_ARCH_X86_64", SCMP_ARCH_X86_64},
    {"SCMP_ARCH_X32", SCMP_ARCH_X32},           {"SCMP_ARCH_ARM", SCMP_ARCH_ARM},
    {"SCMP_ARCH_AARCH64", SCMP_ARCH_AARCH64},   {"SCMP_ARCH_MIPS", SCMP_ARCH_MIPS},
    {"SCMP_ARCH_MIPS64", SCMP_ARCH_MIPS64},     {"SCMP_ARCH_MIPS64N32", SCMP_ARCH_MIPS64N32},
    {"SCMP_ARCH_MIPSEL", SCMP_ARCH_MIPSEL},     {"SCMP_ARCH_MIPSEL64", SCMP_ARCH_MIPSEL64},
    {"SCMP_ARCH_MIPSEL64N32", SCMP_ARCH_MIPSEL64N32}, {"SCMP_ARCH_PPC", SCMP_ARCH_PPC},
    {"SCMP_ARCH_PPC64", SCMP_ARCH_PPC64},       {"SCMP_ARCH_PPC64LE", SCMP_ARCH_PPC64LE},
    {"SCMP_ARCH_S390", SCMP_ARCH_S390},         {"SCMP_ARCH_S390X", SCMP_ARCH_S390X},
    {"SCMP_ARCH_PARISC", SCMP_ARCH_PARISC},     {"SCMP_ARCH_PARISC64", SCMP_ARCH_PARISC64},
    {"SCMP_ARCH_RISCV64", SCMP_ARCH_RISCV64},
};

// flags: passed to seccomp(2) as they are (seccomp(2) "SECCOMP_SET_MODE_FILTER").
constexpr FlagName flags[] = {
    {"SECCOMP_FILTER_FLAG_TSYNC", kFlagTsync},
    {"SECCOMP_FILTER_FLAG_LOG", kFlagLog},
    {"SECCOMP_FILTER_FLAG_SPEC_ALLOW", kFlagSpecAllow},
    {"SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV", kFlagWaitKillableRecv},
};

template <typename Table>
auto find_in(const Table& table, std::string_view name) -> const std::remove_extent_t<Table>* {
    for (const auto& entry : table)
        if (entry.name == name) return &entry;
    return nullptr;
}

}  // namespace

std::span<const ActionName> action_names() { return actions; }
std::span<const OperatorName> operator_names() { return operators; }
std::span<const ArchName> arch_names() { return archs; }
std::span<const FlagName> flag_names() { return flags; }

std::optional<ActionKind> find_action(std::string_view name) {
    if (const auto* entry = find_in(actions, name)) return entry->kind;
    return std::nullopt;
}

std::optional<int> find_operator(std::string_view name) {
    if (const auto* entry = find_in(operators, name)) return entry->op;
    return std::nullopt;
}

std::optional<std::uint32_t> find_arch(std::string_view name) {
    if (const auto* entry = find_in(archs, name)) return entry->token;
    return std::nullopt;
}

std::optional<std::uint32_t> find_flag(std::string_view name) {
    if (const auto* entry = find_in(flags, name)) return entry->bit;
    return std::nullopt;
}

std::string_view arch_name(std::uint32_t token) {
    for (const auto& entry : archs)
        if (entry.token == token) return entry.name;
    return {};
}

std::vector<std::string> supported_flag_names() {
    std::vector<std::string> names;
    for (const auto& flag : flags) {
        // WAIT_KILLABLE_RECV is only valid together with NEW_LISTENER (EINVAL otherwise), so probe the pair.
        std::uint32_t probe = flag.bit == kFlagWaitKillableRecv ? (flag.bit | kFlagNewListener) : flag.bit;
        long rc = ::syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, probe, nullptr);
        if (rc < 0 && errno == EFAULT) names.emplace_back(flag.name);
    }
    return names;
}

bool kernel_has_action(ActionKind kind) {
    std::uint32_t action = kernel_action(kind);
    if (::syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &action) == 0) return true;
    // EOPNOTSUPP: the kernel does not know this action. EINVAL: it predates SECCOMP_GET_ACTION_AVAIL
    // (Linux < 4.14) and cannot say; the load will.
    return errno != EOPNOTSUPP;
}

}  // namespace husk::seccomp
