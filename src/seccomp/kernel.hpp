// The seccomp(2) constants husk needs, defined here when the installed UAPI headers are older than the
// kernels husk runs on (seccomp(2), include/uapi/linux/seccomp.h). Not a public header.
#pragma once

#include <linux/seccomp.h>

#include <cstdint>

#include "seccomp/names.hpp"

namespace husk::seccomp {

// Filter flags (seccomp(2) "SECCOMP_SET_MODE_FILTER").
inline constexpr std::uint32_t kFlagTsync = 1u << 0;              // Linux 3.17
inline constexpr std::uint32_t kFlagLog = 1u << 1;                // Linux 4.14
inline constexpr std::uint32_t kFlagSpecAllow = 1u << 2;          // Linux 4.17
inline constexpr std::uint32_t kFlagNewListener = 1u << 3;        // Linux 5.0
inline constexpr std::uint32_t kFlagTsyncEsrch = 1u << 4;         // Linux 5.7
inline constexpr std::uint32_t kFlagWaitKillableRecv = 1u << 5;   // Linux 5.19

// Filter return values (SECCOMP_RET_*); the low 16 bits are the action's data (errno, trace message).
inline constexpr std::uint32_t kRetKillProcess = 0x80000000u;
inline constexpr std::uint32_t kRetKillThread = 0x00000000u;
inline constexpr std::uint32_t kRetTrap = 0x00030000u;
inline constexpr std::uint32_t kRetErrno = 0x00050000u;
inline constexpr std::uint32_t kRetUserNotif = 0x7fc00000u;
inline constexpr std::uint32_t kRetTrace = 0x7ff00000u;
inline constexpr std::uint32_t kRetLog = 0x7ffc0000u;
inline constexpr std::uint32_t kRetAllow = 0x7fff0000u;

// x86_64 marks x32 system calls with this bit in the syscall number (asm/unistd.h __X32_SYSCALL_BIT); the
// kernel reports them with arch AUDIT_ARCH_X86_64 like native ones.
inline constexpr std::uint32_t kX32SyscallBit = 0x40000000u;

// The SECCOMP_RET_* action of a kind (data bits 0), for SECCOMP_GET_ACTION_AVAIL.
constexpr std::uint32_t kernel_action(ActionKind kind) {
    switch (kind) {
        case ActionKind::kill_process: return kRetKillProcess;
        case ActionKind::kill_thread: return kRetKillThread;
        case ActionKind::trap: return kRetTrap;
        case ActionKind::errno_ret: return kRetErrno;
        case ActionKind::trace: return kRetTrace;
        case ActionKind::allow: return kRetAllow;
        case ActionKind::log: return kRetLog;
        case ActionKind::notify: return kRetUserNotif;
    }
    return kRetKillProcess;
}

}  // namespace husk::seccomp
