// Thin wrappers for system calls glibc 2.36 does not wrap (clone3, pidfd, openat2, the mount API).
// All are noexcept and allocation-free: the container child may call them.
#pragma once

#include <fcntl.h>
#include <linux/mount.h>
#include <linux/openat2.h>
#include <linux/sched.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#include <csignal>
#include <cstdint>

namespace husk::sys {

inline long clone3(clone_args* args) noexcept { return ::syscall(SYS_clone3, args, sizeof *args); }

inline int pidfd_open(pid_t pid, unsigned flags = 0) noexcept {
    return static_cast<int>(::syscall(SYS_pidfd_open, pid, flags));
}

inline int pidfd_send_signal(int pidfd, int sig, siginfo_t* info = nullptr, unsigned flags = 0) noexcept {
    return static_cast<int>(::syscall(SYS_pidfd_send_signal, pidfd, sig, info, flags));
}

inline int openat2(int dirfd, const char* path, open_how* how) noexcept {
    return static_cast<int>(::syscall(SYS_openat2, dirfd, path, how, sizeof *how));
}

inline int pivot_root(const char* new_root, const char* put_old) noexcept {
    return static_cast<int>(::syscall(SYS_pivot_root, new_root, put_old));
}

inline int open_tree(int dirfd, const char* path, unsigned flags) noexcept {
    return static_cast<int>(::syscall(SYS_open_tree, dirfd, path, flags));
}

inline int move_mount(int from_dirfd, const char* from_path, int to_dirfd, const char* to_path, unsigned flags) noexcept {
    return static_cast<int>(::syscall(SYS_move_mount, from_dirfd, from_path, to_dirfd, to_path, flags));
}

inline int fsopen(const char* fs_name, unsigned flags) noexcept {
    return static_cast<int>(::syscall(SYS_fsopen, fs_name, flags));
}

inline int fsconfig(int fd, unsigned cmd, const char* key, const void* value, int aux) noexcept {
    return static_cast<int>(::syscall(SYS_fsconfig, fd, cmd, key, value, aux));
}

inline int fsmount(int fd, unsigned flags, unsigned attr_flags) noexcept {
    return static_cast<int>(::syscall(SYS_fsmount, fd, flags, attr_flags));
}

inline int mount_setattr(int dirfd, const char* path, unsigned flags, mount_attr* attr) noexcept {
    return static_cast<int>(::syscall(SYS_mount_setattr, dirfd, path, flags, attr, sizeof *attr));
}

}  // namespace husk::sys
