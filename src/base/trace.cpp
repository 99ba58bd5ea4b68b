#include "base/trace.hpp"

#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <cstring>

namespace husk::trace {
namespace {

// Zero-initialised: no static initialiser, and off until start() says otherwise.
bool on = false;

// Writes the decimal digits of value ending at *end (exclusive), at least `width` of them; returns the start.
char* digits(char* end, unsigned long value, int width) {
    char* p = end;
    do {
        *--p = static_cast<char>('0' + value % 10);
        value /= 10;
        --width;
    } while (value != 0 || width > 0);
    return p;
}

}  // namespace

void start(char** envp) noexcept {
    static constexpr char name[] = "HUSK_TRACE=";
    for (char** e = envp; e != nullptr && *e != nullptr; ++e)
        if (std::strncmp(*e, name, sizeof name - 1) == 0) on = std::strcmp(*e + sizeof name - 1, "1") == 0;
}

bool enabled() noexcept { return on; }

void mark(const char* phase) noexcept {
    if (!on) return;
    // A reader of stderr that went away must not end husk half-way (SIGPIPE), as with its messages (cli/log.cpp).
    // Not in init (the other overload): a seccomp filter may deny sigaction there.
    struct sigaction ignore {}, previous {};
    ignore.sa_handler = SIG_IGN;
    ::sigaction(SIGPIPE, &ignore, &previous);
    mark(phase, ::getpid());
    ::sigaction(SIGPIPE, &previous, nullptr);
}

void mark(const char* phase, int pid) noexcept {
    if (!on) return;
    timespec now{};
    ::clock_gettime(CLOCK_MONOTONIC, &now);
    char line[160];
    char number[48];
    char* end = number + sizeof number;
    // "<sec>.<usec> <pid> " built backwards in `number`, then copied ahead of the phase.
    char* p = digits(end, static_cast<unsigned long>(pid), 1);
    *--p = ' ';
    p = digits(p, static_cast<unsigned long>(now.tv_nsec / 1000), 6);
    *--p = '.';
    p = digits(p, static_cast<unsigned long>(now.tv_sec), 1);
    static constexpr char prefix[] = "husk-trace ";
    std::size_t n = 0;
    std::memcpy(line, prefix, sizeof prefix - 1);
    n += sizeof prefix - 1;
    std::size_t len = static_cast<std::size_t>(end - p);
    std::memcpy(line + n, p, len);
    n += len;
    line[n++] = ' ';
    std::size_t phase_len = ::strnlen(phase, sizeof line - n - 1);
    std::memcpy(line + n, phase, phase_len);
    n += phase_len;
    line[n++] = '\n';
    (void)!::write(2, line, n);
}

}  // namespace husk::trace
