#include "hooks/hook_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <ctime>

#include "base/fs.hpp"
#include "base/stack_text.hpp"
#include "base/sys.hpp"
#include "husk/unique_fd.hpp"

namespace husk::hooks {
namespace {

// Moves fd above 2 so that installing stdin/stdout/stderr cannot overwrite it.
int above_stdio(int fd) noexcept { return fd > 2 ? fd : ::fcntl(fd, F_DUPFD_CLOEXEC, 3); }

// The forked hook: stdio in place, signal state reset (ignored signals and the blocked mask survive
// execve(2)), every other fd closed on exec, then the program. An execve failure travels back as errno
// on exec_error.
[[noreturn]] void exec_hook(const PreparedHook& hook, int stdin_fd, int output_fd, int exec_error) noexcept {
    stdin_fd = above_stdio(stdin_fd);
    output_fd = above_stdio(output_fd);
    exec_error = above_stdio(exec_error);
    if (::dup2(stdin_fd, 0) < 0 || ::dup2(output_fd, 1) < 0 || ::dup2(output_fd, 2) < 0) {
        int err = errno;
        ssize_t ignored = ::write(exec_error, &err, sizeof err);
        (void)ignored;
        ::_exit(127);
    }
    struct sigaction default_action = {};
    default_action.sa_handler = SIG_DFL;
    for (int sig = 1; sig < NSIG; ++sig) ::sigaction(sig, &default_action, nullptr);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    ::syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC);

    ::execve(hook.path.c_str(), hook.argv.data(), hook.envp.data());
    int err = errno;
    ssize_t ignored = ::write(exec_error, &err, sizeof err);
    (void)ignored;
    ::_exit(127);
}

long now_ms() noexcept {
    timespec ts = {};
    ::clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

void keep_output(HookStatus& status, const char* data, std::size_t length) noexcept {
    for (std::size_t i = 0; i < length && status.output_length < sizeof status.output; ++i)
        status.output[status.output_length++] = data[i];
}

// Reads what is available; false at end of file or on error.
bool read_output(int fd, HookStatus& status) noexcept {
    char scratch[512];
    for (int round = 0; round < 64; ++round) {
        ssize_t n = ::read(fd, scratch, sizeof scratch);
        if (n > 0) {
            keep_output(status, scratch, static_cast<std::size_t>(n));
            continue;
        }
        if (n < 0 && errno == EINTR) continue;
        return n < 0 && errno == EAGAIN;
    }
    return true;
}

// Sets what waitid(2) reported, unless the timeout already decided the outcome.
void record_exit(HookStatus& status, const siginfo_t& info) noexcept {
    if (status.kind == HookStatus::Kind::timed_out) return;
    if (info.si_code == CLD_EXITED) {
        status.kind = HookStatus::Kind::exited;
    } else {
        status.kind = HookStatus::Kind::signaled;
    }
    status.code = info.si_status;
}

HookStatus setup_failure(const char* operation, int err) noexcept {
    HookStatus status;
    status.kind = HookStatus::Kind::setup_failed;
    status.operation = operation;
    status.code = err;
    return status;
}

// Runs with SIGPIPE blocked: writing the state to a hook that exited without reading it must give EPIPE,
// not kill husk.
HookStatus supervise(const PreparedHook& hook, std::string_view state, Pipe& input, Pipe& output,
                     Pipe& exec_error) noexcept {
    int pidfd = -1;
    clone_args args = {};
    args.flags = CLONE_PIDFD;
    args.pidfd = reinterpret_cast<std::uintptr_t>(&pidfd);
    args.exit_signal = SIGCHLD;
    long pid = sys::clone3(&args);
    if (pid < 0) return setup_failure("clone3", errno);
    if (pid == 0) exec_hook(hook, input.read_end.get(), output.write_end.get(), exec_error.write_end.get());

    UniqueFd process(pidfd);
    input.read_end.reset();
    output.write_end.reset();
    exec_error.write_end.reset();
    ::fcntl(input.write_end.get(), F_SETFL, O_NONBLOCK);
    ::fcntl(output.read_end.get(), F_SETFL, O_NONBLOCK);
    if (state.empty()) input.write_end.reset();

    HookStatus status;
    const long deadline = hook.timeout_seconds > 0 ? now_ms() + hook.timeout_seconds * 1000L : 0;
    std::size_t written = 0;
    for (;;) {
        pollfd fds[3] = {{process.get(), POLLIN, 0}, {-1, POLLOUT, 0}, {-1, POLLIN, 0}};
        if (input.write_end) fds[1].fd = input.write_end.get();
        if (output.read_end) fds[2].fd = output.read_end.get();  // poll(2) skips negative fds
        int wait_ms = -1;
        if (deadline != 0) {
            long remaining = deadline - now_ms();
            if (remaining <= 0) {
                status.kind = HookStatus::Kind::timed_out;
                sys::pidfd_send_signal(process.get(), SIGKILL);
                break;
            }
            wait_ms = static_cast<int>(remaining);
        }
        int ready = ::poll(fds, 3, wait_ms);
        if (ready < 0 && errno == EINTR) continue;
        if (ready < 0) {
            int err = errno;
            sys::pidfd_send_signal(process.get(), SIGKILL);
            siginfo_t info = {};
            ::waitid(P_PIDFD, static_cast<id_t>(process.get()), &info, WEXITED);
            return setup_failure("poll", err);
        }
        if (fds[1].revents != 0) {
            ssize_t n = ::write(input.write_end.get(), state.data() + written, state.size() - written);
            if (n > 0) written += static_cast<std::size_t>(n);
            // Done, or the hook closed its stdin (EPIPE): either way nothing more to send.
            if (written == state.size() || (n < 0 && errno != EAGAIN && errno != EINTR)) input.write_end.reset();
        }
        if (fds[2].revents != 0 && !read_output(output.read_end.get(), status)) output.read_end.reset();
        if (fds[0].revents != 0) break;
    }

    siginfo_t info = {};
    int waited;
    do {
        waited = ::waitid(P_PIDFD, static_cast<id_t>(process.get()), &info, WEXITED);
    } while (waited < 0 && errno == EINTR);
    if (waited < 0) return setup_failure("waitid", errno);
    record_exit(status, info);
    // What the hook wrote before exiting; a descendant still holding the pipe is not waited for.
    if (output.read_end) read_output(output.read_end.get(), status);

    int exec_errno = 0;
    if (::read(exec_error.read_end.get(), &exec_errno, sizeof exec_errno) == sizeof exec_errno) {
        status.kind = HookStatus::Kind::exec_failed;
        status.code = exec_errno;
    }
    return status;
}

}  // namespace

HookStatus run_hook_process(const PreparedHook& hook, std::string_view state_json) noexcept {
    auto input = open_pipe(), output = open_pipe(), exec_error = open_pipe();
    for (const auto* pipe : {&input, &output, &exec_error})
        if (!*pipe) return setup_failure("pipe2", pipe->error().err);

    sigset_t pipe_signal, previous, pending;
    sigemptyset(&pipe_signal);
    sigaddset(&pipe_signal, SIGPIPE);
    ::sigprocmask(SIG_BLOCK, &pipe_signal, &previous);
    ::sigpending(&pending);
    const bool was_pending = sigismember(&pending, SIGPIPE);

    HookStatus status = supervise(hook, state_json, *input, *output, *exec_error);

    // Discard the SIGPIPE our own write raised, then restore the caller's mask.
    if (!was_pending) {
        timespec zero = {};
        while (::sigtimedwait(&pipe_signal, nullptr, &zero) > 0) {
        }
    }
    ::sigprocmask(SIG_SETMASK, &previous, nullptr);
    return status;
}

Error describe_failure(const HookStatus& status, std::string_view kind, std::size_t index,
                       const PreparedHook& hook) noexcept {
    StackText text;
    text << kind << " hook " << static_cast<long>(index) << " (\"" << hook.path << "\"): ";
    switch (status.kind) {
        case HookStatus::Kind::exited:
            text << "exited with status " << static_cast<long>(status.code);
            break;
        case HookStatus::Kind::signaled: {
            const char* name = sigabbrev_np(status.code);
            if (name)
                text << "killed by signal SIG" << name;
            else
                text << "killed by signal " << static_cast<long>(status.code);
            break;
        }
        case HookStatus::Kind::timed_out:
            text << "timed out after " << static_cast<long>(hook.timeout_seconds) << "s";
            break;
        case HookStatus::Kind::exec_failed:
            text << "execve";
            break;
        case HookStatus::Kind::setup_failed:
            text << status.operation;
            break;
    }
    if (status.output_length > 0) {
        // One line: control characters become spaces, trailing ones are dropped.
        std::size_t length = status.output_length;
        while (length > 0 && static_cast<unsigned char>(status.output[length - 1]) <= ' ') --length;
        if (length > 0) {
            text << "; output: \"";
            for (std::size_t i = 0; i < length; ++i) {
                char c = status.output[i];
                text << std::string_view((static_cast<unsigned char>(c) < ' ' || c == 0x7f) ? " " : &status.output[i],
                                         1);
            }
            text << "\"";
        }
    }
    if (status.kind == HookStatus::Kind::exec_failed || status.kind == HookStatus::Kind::setup_failed)
        return Error::sys(status.code, text.view());
    return Error::msg(text.view());
}

}  // namespace husk::hooks
