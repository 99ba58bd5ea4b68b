// /proc/PID/stat, the fields husk needs: state, start time (tells a reused pid apart), and the exit status a
// zombie keeps until it is reaped.
#pragma once

#include <sys/types.h>

#include <cstdint>

#include "husk/error.hpp"

namespace husk {

struct ProcStat {
    char state = '?';             // field 3: R, S, D, Z, ...
    std::uint64_t start_time = 0; // field 22, clock ticks since boot
    int exit_code = 0;            // field 52: the wait status, meaningful once the process is a zombie
};

// ENOENT when the process is gone.
Result<ProcStat> read_proc_stat(pid_t pid);

// The calling process's start time (field 22 of its own stat), which never changes: read once per process (a
// foreground run names itself as creator, monitor and owner of a pending delete).
Result<std::uint64_t> own_start_time();

}  // namespace husk
