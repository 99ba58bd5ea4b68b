// Per-phase timestamps for finding where start-up time goes (docs/testing.md, "Where the time goes"). With
// HUSK_TRACE=1 in husk's environment every mark writes one line to fd 2:
//   husk-trace <CLOCK_MONOTONIC seconds.microseconds> <pid> <phase>
// Off (the default) a mark is one load and a branch: no allocation, no system call. Marks are safe in the
// cloned child (no allocation, one clock_gettime and one write), so the containment recipe has them too.
#pragma once

namespace husk::trace {

// Reads HUSK_TRACE once; called first thing in the process (before main, see cli/main.cpp).
void start(char** envp) noexcept;
bool enabled() noexcept;
// phase: a string literal, printed as given, after getpid(); SIGPIPE is ignored for the write.
void mark(const char* phase) noexcept;
// With the pid given: for the container's init, which may run under a seccomp filter that denies getpid.
void mark(const char* phase, int pid) noexcept;

}  // namespace husk::trace
