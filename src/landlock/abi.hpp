// The kernel's Landlock interface, defined here rather than taken from <linux/landlock.h>: Debian 12's copy
// is from Linux 6.1 (ABI 2) and lacks the newer rights, the network and scope fields of the ruleset
// attribute and the net-port rule. Values and ABI versions are those of the kernel's uapi header and of
// Documentation/userspace-api/landlock.rst ("Landlock ABI versions", "Previous limitations").
#pragma once

#include <sys/syscall.h>
#include <unistd.h>

#include <cstdint>

namespace husk::landlock::abi {

// The highest ABI whose rights husk knows by name. A numeric bit outside the tables below is treated as
// needing a newer ABI than this one.
inline constexpr int known_abi = 7;

// landlock_create_ruleset(NULL, 0, VERSION) returns the ABI version instead of creating a ruleset.
inline constexpr unsigned create_ruleset_version = 1u << 0;

// Filesystem access rights ("Filesystem flags"). EXECUTE..MAKE_SYM are ABI 1.
inline constexpr std::uint64_t fs_execute = 1ull << 0;
inline constexpr std::uint64_t fs_write_file = 1ull << 1;
inline constexpr std::uint64_t fs_read_file = 1ull << 2;
inline constexpr std::uint64_t fs_read_dir = 1ull << 3;
inline constexpr std::uint64_t fs_remove_dir = 1ull << 4;
inline constexpr std::uint64_t fs_remove_file = 1ull << 5;
inline constexpr std::uint64_t fs_make_char = 1ull << 6;
inline constexpr std::uint64_t fs_make_dir = 1ull << 7;
inline constexpr std::uint64_t fs_make_reg = 1ull << 8;
inline constexpr std::uint64_t fs_make_sock = 1ull << 9;
inline constexpr std::uint64_t fs_make_fifo = 1ull << 10;
inline constexpr std::uint64_t fs_make_block = 1ull << 11;
inline constexpr std::uint64_t fs_make_sym = 1ull << 12;
inline constexpr std::uint64_t fs_refer = 1ull << 13;      // ABI 2 (Linux 5.19): link/rename across dirs
inline constexpr std::uint64_t fs_truncate = 1ull << 14;   // ABI 3 (Linux 6.2)
inline constexpr std::uint64_t fs_ioctl_dev = 1ull << 15;  // ABI 5 (Linux 6.10)

// Rights that only make sense on a directory: a path-beneath rule on a file may not grant them (EINVAL).
inline constexpr std::uint64_t fs_directory_only = fs_read_dir | fs_remove_dir | fs_remove_file | fs_make_char |
                                                   fs_make_dir | fs_make_reg | fs_make_sock | fs_make_fifo |
                                                   fs_make_block | fs_make_sym | fs_refer;

// Network access rights ("Network flags"), ABI 4 (Linux 6.7): TCP bind(2) and connect(2) by port.
inline constexpr std::uint64_t net_bind_tcp = 1ull << 0;
inline constexpr std::uint64_t net_connect_tcp = 1ull << 1;

// Scopes ("Scope flags"), ABI 6 (Linux 6.12): IPC with processes outside the Landlock domain.
inline constexpr std::uint64_t scope_abstract_unix_socket = 1ull << 0;
inline constexpr std::uint64_t scope_signal = 1ull << 1;

// landlock_restrict_self(2) flags, ABI 7 (Linux 6.15): audit logging of denials. husk passes none (the
// kernel's default logs denials of the domain's own process image); listed for completeness.
inline constexpr unsigned restrict_self_log_same_exec_off = 1u << 0;
inline constexpr unsigned restrict_self_log_new_exec_on = 1u << 1;
inline constexpr unsigned restrict_self_log_subdomains_off = 1u << 2;

// struct landlock_ruleset_attr; the kernel accepts any prefix that covers what is non-zero, so older
// kernels (ABI < 4: handled_access_fs only) take the 8-byte prefix.
struct RulesetAttr {
    std::uint64_t handled_access_fs = 0;
    std::uint64_t handled_access_net = 0;  // ABI 4
    std::uint64_t scoped = 0;              // ABI 6
};

// enum landlock_rule_type
inline constexpr int rule_path_beneath = 1;
inline constexpr int rule_net_port = 2;  // ABI 4

// struct landlock_path_beneath_attr, packed in the uapi header (12 bytes).
struct __attribute__((packed)) PathBeneathAttr {
    std::uint64_t allowed_access = 0;
    std::int32_t parent_fd = -1;
};
static_assert(sizeof(PathBeneathAttr) == 12);

// struct landlock_net_port_attr
struct NetPortAttr {
    std::uint64_t allowed_access = 0;
    std::uint64_t port = 0;  // host byte order
};

inline int create_ruleset(const RulesetAttr* attr, std::size_t size, unsigned flags) noexcept {
    return static_cast<int>(::syscall(SYS_landlock_create_ruleset, attr, size, flags));
}
inline int add_rule(int ruleset_fd, int rule_type, const void* rule_attr) noexcept {
    return static_cast<int>(::syscall(SYS_landlock_add_rule, ruleset_fd, rule_type, rule_attr, 0u));
}
inline int restrict_self(int ruleset_fd, unsigned flags) noexcept {
    return static_cast<int>(::syscall(SYS_landlock_restrict_self, ruleset_fd, flags));
}

}  // namespace husk::landlock::abi
