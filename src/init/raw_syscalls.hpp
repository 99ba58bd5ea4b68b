// The few system calls husk-init makes, without a C library: husk-init is built freestanding (-nostdlib) so
// that the image husk copies into a sealed memfd for every container is a few KiB, not the 680 KiB a static
// glibc adds even to an empty main (docs/ARCHITECTURE.md, "Starting fast"). Each returns what the kernel
// returns: the result, or -errno. x86_64 and aarch64.
#pragma once

#include <asm/unistd.h>

namespace husk::init::raw {

#if defined(__x86_64__)
inline long syscall6(long number, long a, long b, long c, long d, long e, long f) {
    register long r10 __asm__("r10") = d;
    register long r8 __asm__("r8") = e;
    register long r9 __asm__("r9") = f;
    long result;
    __asm__ volatile("syscall"
                     : "=a"(result)
                     : "a"(number), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
                     : "rcx", "r11", "memory");
    return result;
}
#elif defined(__aarch64__)
inline long syscall6(long number, long a, long b, long c, long d, long e, long f) {
    register long x8 __asm__("x8") = number;
    register long x0 __asm__("x0") = a;
    register long x1 __asm__("x1") = b;
    register long x2 __asm__("x2") = c;
    register long x3 __asm__("x3") = d;
    register long x4 __asm__("x4") = e;
    register long x5 __asm__("x5") = f;
    __asm__ volatile("svc 0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4), "r"(x5) : "memory");
    return x0;
}
#else
#error "husk-init's raw system calls cover x86_64 and aarch64 only"
#endif

inline long call(long number, long a = 0, long b = 0, long c = 0, long d = 0) {
    return syscall6(number, a, b, c, d, 0, 0);
}

// The kernel's sigset_t: one bit per signal, 64 signals on both architectures.
using SignalSet = unsigned long;
constexpr unsigned long signal_set_size = sizeof(SignalSet);

inline long write(int fd, const void* data, unsigned long size) {
    return call(__NR_write, fd, reinterpret_cast<long>(data), static_cast<long>(size));
}
inline long fcntl(int fd, int command, long argument) { return call(__NR_fcntl, fd, command, argument); }
inline long set_signal_mask(const SignalSet* set) {
    constexpr int sig_setmask = 2;  // SIG_SETMASK
    return call(__NR_rt_sigprocmask, sig_setmask, reinterpret_cast<long>(set), 0, signal_set_size);
}
// fork(2) is clone(SIGCHLD) with nothing shared; aarch64 has no fork system call.
inline long fork() {
    constexpr long sigchld = 17;
    return syscall6(__NR_clone, sigchld, 0, 0, 0, 0, 0);
}
inline long execve(const char* path, char* const* argv, char* const* envp) {
    return call(__NR_execve, reinterpret_cast<long>(path), reinterpret_cast<long>(argv), reinterpret_cast<long>(envp));
}
// sigwaitinfo(2) without the siginfo: the signal's number, or -errno.
inline long wait_signal(const SignalSet* set) {
    return call(__NR_rt_sigtimedwait, reinterpret_cast<long>(set), 0, 0, signal_set_size);
}
inline long kill(int pid, int sig) { return call(__NR_kill, pid, sig); }
inline long wait_any_nohang(int* status) {
    constexpr long wnohang = 1;
    return call(__NR_wait4, -1, reinterpret_cast<long>(status), wnohang, 0);
}
[[noreturn]] inline void exit(int status) {
    for (;;) call(__NR_exit_group, status);
}

}  // namespace husk::init::raw
