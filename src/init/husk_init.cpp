// husk-init: the minimal pid 1 of run.husk.init (tini/catatonit semantics).
// Usage: husk-init [--report-fd=FD] -- PROGRAM ARGS...
// It runs PROGRAM as its only child, forwards every signal it receives to it, reaps every process that is
// reparented to it, and exits with PROGRAM's status (128 + N when a signal N ended it). Before it exits it
// writes PROGRAM's wait status (an int) to FD: as pid 1 of a pid namespace it cannot die of the signal that
// ended PROGRAM (its own is ignored there unless it has a handler, pid_namespaces(7)), so husk's monitor
// learns from FD, not from 128 + N alone, that PROGRAM was killed rather than exited with that code. Built static and
// embedded in husk, which runs it from a sealed memfd (src/init/sealed_init.hpp), so nothing in the container
// can reach a writable husk binary through /proc/1/exe. Plain C library calls only: no allocation, no
// exceptions, so it stays small and its behaviour obvious.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

[[noreturn]] void die(const char* what, const char* subject, int err) {
    std::fprintf(stderr, "husk-init: %s %s: %s\n", what, subject, std::strerror(err));
    _exit(err == ENOENT ? 127 : 126);
}

// The status a shell would report for a wait status: the exit code, or 128 + the signal.
int status_of(int wait_status) {
    if (WIFEXITED(wait_status)) return WEXITSTATUS(wait_status);
    if (WIFSIGNALED(wait_status)) return 128 + WTERMSIG(wait_status);
    return 1;
}

}  // namespace

int main(int argc, char** argv) {
    int report = -1;
    int first = 1;
    if (argc > 1 && std::strncmp(argv[1], "--report-fd=", 12) == 0) {
        report = std::atoi(argv[1] + 12);
        first = 2;
        // Not for PROGRAM: it must not inherit the fd, nor report for us.
        if (fcntl(report, F_SETFD, FD_CLOEXEC) != 0) die("fcntl", argv[1], errno);
    }
    if (argc < first + 2 || std::strcmp(argv[first], "--") != 0) {
        std::fprintf(stderr, "usage: husk-init [--report-fd=FD] -- PROGRAM [ARGS...]\n");
        return 2;
    }
    char** program = argv + first + 1;
    // Every signal waits in the queue for sigwaitinfo below: none interrupts us, none is lost. husk blocks them
    // all before executing us already, so that one sent before this line is not dropped either.
    sigset_t all, none;
    sigfillset(&all);
    sigemptyset(&none);
    if (sigprocmask(SIG_SETMASK, &all, nullptr) != 0) die("sigprocmask", "", errno);
    pid_t child = fork();
    if (child < 0) die("fork", program[0], errno);
    if (child == 0) {
        // The program starts with no signal blocked, as without an init, and is looked up in its PATH.
        sigprocmask(SIG_SETMASK, &none, nullptr);
        execvp(program[0], program);
        die("exec", program[0], errno);
    }
    for (;;) {
        siginfo_t info{};
        int sig = sigwaitinfo(&all, &info);
        if (sig < 0) {
            if (errno == EINTR) continue;
            die("sigwaitinfo", "", errno);
        }
        if (sig != SIGCHLD) {
            // Forwarded as it came; a signal the program ignores is then ignored, as without an init.
            if (kill(child, sig) != 0 && errno != ESRCH) die("kill", program[0], errno);
            continue;
        }
        // SIGCHLD: reap everything that has ended, orphans included (several may share one SIGCHLD).
        for (;;) {
            int wait_status = 0;
            pid_t pid = waitpid(-1, &wait_status, WNOHANG);
            if (pid <= 0) break;
            // The program is done: so is the container (the kernel kills what is left in the pid
            // namespace when its init exits).
            if (pid == child) {
                if (report >= 0) (void)!write(report, &wait_status, sizeof wait_status);
                return status_of(wait_status);
            }
        }
    }
}
