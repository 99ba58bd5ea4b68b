// husk-init: the minimal pid 1 of run.husk.init (tini/catatonit semantics).
// Usage: husk-init [--report-fd=FD] -- PROGRAM ARGS...
// It runs PROGRAM as its only child, forwards every signal it receives to it, reaps every process that is
// reparented to it, and exits with PROGRAM's status (128 + N when a signal N ended it). Before it exits it
// writes PROGRAM's wait status (an int) to FD: as pid 1 of a pid namespace it cannot die of the signal that
// ended PROGRAM (its own is ignored there unless it has a handler, pid_namespaces(7)), so husk's monitor
// learns from FD, not from 128 + N alone, that PROGRAM was killed rather than exited with that code. Built static and
// embedded in husk, which runs it from a sealed memfd (src/init/sealed_init.hpp), so nothing in the container
// can reach a writable husk binary through /proc/1/exe. No C library: husk copies the image for every
// container, so it is built freestanding (raw_syscalls.hpp, a few KiB); no allocation, no exceptions, so its
// behaviour stays obvious. The program is looked up as execvp(3) does (glibc's rules, below).
#include <linux/errno.h>

#include "init/raw_syscalls.hpp"

// What gcc may call for a copy or a fill even here; written as loops it cannot turn back into calls
// (-fno-tree-loop-distribute-patterns in meson.build).
extern "C" void* memcpy(void* to, const void* from, unsigned long size) {
    auto* out = static_cast<unsigned char*>(to);
    const auto* in = static_cast<const unsigned char*>(from);
    for (unsigned long i = 0; i < size; ++i) out[i] = in[i];
    return to;
}
extern "C" void* memset(void* to, int byte, unsigned long size) {
    auto* out = static_cast<unsigned char*>(to);
    for (unsigned long i = 0; i < size; ++i) out[i] = static_cast<unsigned char>(byte);
    return to;
}

namespace {

namespace raw = husk::init::raw;

unsigned long length(const char* text) {
    unsigned long n = 0;
    while (text[n] != '\0') ++n;
    return n;
}

bool equal(const char* a, const char* b) {
    while (*a != '\0' && *a == *b) ++a, ++b;
    return *a == *b;
}

bool starts_with(const char* text, const char* prefix) {
    while (*prefix != '\0')
        if (*text++ != *prefix++) return false;
    return true;
}

// glibc's strerror(3) text for what exec, fork and fcntl can fail with.
const char* error_text(int err) {
    switch (err) {
        case EPERM: return "Operation not permitted";
        case ENOENT: return "No such file or directory";
        case EIO: return "Input/output error";
        case E2BIG: return "Argument list too long";
        case ENOEXEC: return "Exec format error";
        case EBADF: return "Bad file descriptor";
        case EAGAIN: return "Resource temporarily unavailable";
        case ENOMEM: return "Cannot allocate memory";
        case EACCES: return "Permission denied";
        case EFAULT: return "Bad address";
        case ENOTDIR: return "Not a directory";
        case EISDIR: return "Is a directory";
        case EINVAL: return "Invalid argument";
        case ENFILE: return "Too many open files in system";
        case EMFILE: return "Too many open files";
        case ETXTBSY: return "Text file busy";
        case ENAMETOOLONG: return "File name too long";
        case ELOOP: return "Too many levels of symbolic links";
        case ELIBBAD: return "Accessing a corrupted shared library";
        default: return nullptr;
    }
}

// Appends to a fixed buffer, cutting what does not fit.
struct Line {
    char text[512];
    unsigned long size = 0;
    void add(const char* part) {
        while (*part != '\0' && size < sizeof text) text[size++] = *part++;
    }
    void add_number(unsigned long value) {
        char digits[24];
        int n = 0;
        do digits[n++] = static_cast<char>('0' + value % 10); while ((value /= 10) != 0);
        while (n > 0 && size < sizeof text) text[size++] = digits[--n];
    }
};

// "husk-init: WHAT SUBJECT: strerror" on stderr, as fprintf printed it before.
[[noreturn]] void die(const char* what, const char* subject, int err) {
    Line line;
    line.add("husk-init: ");
    line.add(what);
    line.add(" ");
    line.add(subject);
    line.add(": ");
    if (const char* text = error_text(err)) {
        line.add(text);
    } else {
        line.add("Unknown error ");
        line.add_number(static_cast<unsigned long>(err));
    }
    line.add("\n");
    (void)raw::write(2, line.text, line.size);
    raw::exit(err == ENOENT ? 127 : 126);
}

// The status a shell would report for a wait status: the exit code, or 128 + the signal.
int status_of(int wait_status) {
    int signal = wait_status & 0x7f;
    if (signal == 0) return (wait_status >> 8) & 0xff;       // WIFEXITED
    if (signal != 0x7f) return 128 + signal;                 // WIFSIGNALED
    return 1;
}

const char* env_value(char** envp, const char* name_equals) {
    for (; *envp != nullptr; ++envp)
        if (starts_with(*envp, name_equals)) return *envp + length(name_equals);
    return nullptr;
}

// glibc's maybe_script_execute: a file the kernel cannot execute (ENOEXEC) runs as a /bin/sh script. argv[-1]
// is ours to use ("--" before the program), so the shell's argv is built in place.
long execute_or_script(char* file, char** argv, char** envp) {
    long r = raw::execve(file, argv, envp);
    if (r != -ENOEXEC) return r;
    char* saved[2] = {argv[-1], argv[0]};
    argv[-1] = const_cast<char*>("/bin/sh");
    argv[0] = file;
    r = raw::execve("/bin/sh", argv - 1, envp);
    argv[-1] = saved[0];
    argv[0] = saved[1];
    return r;
}

// execvp(3) as glibc 2.36 does it: a name with a slash as it is, else each $PATH entry in turn (default
// "/bin:/usr/bin"; an empty entry is the working directory), skipping entries that fail with ENOENT, ESTALE,
// ENOTDIR, ENODEV, ETIMEDOUT or EACCES and stopping at any other error; EACCES if one entry had it. Returns
// the errno when nothing was executed.
int exec_program(char** argv, char** envp) {
    char* file = argv[0];
    if (*file == '\0') return ENOENT;
    for (const char* c = file; *c != '\0'; ++c)
        if (*c == '/') return static_cast<int>(-execute_or_script(file, argv, envp));
    constexpr unsigned long name_max = 255, path_max = 4096;
    const unsigned long file_size = length(file) + 1;
    if (file_size - 1 > name_max) return ENAMETOOLONG;
    const char* path = env_value(envp, "PATH=");
    if (path == nullptr) path = "/bin:/usr/bin";
    char buffer[path_max + name_max + 2];
    bool got_eacces = false;
    for (const char* entry = path;;) {
        const char* end = entry;
        while (*end != '\0' && *end != ':') ++end;
        const unsigned long entry_size = static_cast<unsigned long>(end - entry);
        if (entry_size < path_max) {
            memcpy(buffer, entry, entry_size);
            unsigned long at = entry_size;
            if (entry_size > 0) buffer[at++] = '/';
            memcpy(buffer + at, file, file_size);
            int err = static_cast<int>(-execute_or_script(buffer, argv, envp));
            switch (err) {
                case EACCES: got_eacces = true; break;
                case ENOENT: case ESTALE: case ENOTDIR: case ENODEV: case ETIMEDOUT: break;
                default: return err;
            }
        }
        if (*end == '\0') break;
        entry = end + 1;
    }
    return got_eacces ? EACCES : ENOENT;
}

int husk_init(int argc, char** argv, char** envp) {
    int report = -1;
    int first = 1;
    if (argc > 1 && starts_with(argv[1], "--report-fd=")) {
        report = 0;
        for (const char* digit = argv[1] + 12; *digit >= '0' && *digit <= '9'; ++digit) report = report * 10 + (*digit - '0');
        first = 2;
        // Not for PROGRAM: it must not inherit the fd, nor report for us.
        constexpr int f_setfd = 2, fd_cloexec = 1;
        if (long r = raw::fcntl(report, f_setfd, fd_cloexec); r < 0) die("fcntl", argv[1], static_cast<int>(-r));
    }
    if (argc < first + 2 || !equal(argv[first], "--")) {
        static constexpr char usage[] = "usage: husk-init [--report-fd=FD] -- PROGRAM [ARGS...]\n";
        (void)raw::write(2, usage, sizeof usage - 1);
        return 2;
    }
    char** program = argv + first + 1;
    // Every signal waits in the queue for wait_signal below: none interrupts us, none is lost. husk blocks them
    // all before executing us already, so that one sent before this line is not dropped either.
    const raw::SignalSet all = ~0UL, none = 0;
    if (long r = raw::set_signal_mask(&all); r < 0) die("sigprocmask", "", static_cast<int>(-r));
    long child = raw::fork();
    if (child < 0) die("fork", program[0], static_cast<int>(-child));
    if (child == 0) {
        // The program starts with no signal blocked, as without an init, and is looked up in its PATH.
        (void)raw::set_signal_mask(&none);
        die("exec", program[0], exec_program(program, envp));
    }
    for (;;) {
        long sig = raw::wait_signal(&all);
        if (sig < 0) {
            if (sig == -EINTR) continue;
            die("sigwaitinfo", "", static_cast<int>(-sig));
        }
        if (sig != 17) {  // SIGCHLD
            // Forwarded as it came; a signal the program ignores is then ignored, as without an init.
            if (long r = raw::kill(static_cast<int>(child), static_cast<int>(sig)); r < 0 && r != -ESRCH)
                die("kill", program[0], static_cast<int>(-r));
            continue;
        }
        // SIGCHLD: reap everything that has ended, orphans included (several may share one SIGCHLD).
        for (;;) {
            int wait_status = 0;
            long pid = raw::wait_any_nohang(&wait_status);
            if (pid <= 0) break;
            // The program is done: so is the container (the kernel kills what is left in the pid
            // namespace when its init exits).
            if (pid == child) {
                if (report >= 0) (void)raw::write(report, &wait_status, sizeof wait_status);
                return status_of(wait_status);
            }
        }
    }
}

}  // namespace

// The entry point: the kernel leaves argc, argv[], NULL, envp[], NULL on the stack (the ELF ABI).
extern "C" [[noreturn]] void husk_init_start(long* stack) {
    int argc = static_cast<int>(stack[0]);
    char** argv = reinterpret_cast<char**>(stack + 1);
    raw::exit(husk_init(argc, argv, argv + argc + 1));
}

#if defined(__x86_64__)
__asm__(".text\n.global _start\n_start:\n xor %rbp, %rbp\n mov %rsp, %rdi\n and $-16, %rsp\n call husk_init_start\n hlt\n");
#elif defined(__aarch64__)
__asm__(".text\n.global _start\n_start:\n mov x29, #0\n mov x30, #0\n mov x0, sp\n bl husk_init_start\n brk #0\n");
#endif
