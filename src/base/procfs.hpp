// Writes into the host's /proc/PID of a process husk created (uid_map, gid_map, oom_score_adj) through
// verified handles rather than path strings: /proc must be procfs, and nothing beneath it is reached through
// a symlink or another mount (docs/security.md, "Procfs writes"). A process whose /proc was swapped for something
// else gets an error, not a write somewhere else.
#pragma once

#include <sys/types.h>

#include <string>
#include <string_view>

#include "husk/error.hpp"
#include "husk/unique_fd.hpp"

namespace husk {

// `proc` (normally "/proc", a parameter for tests) checked with fstatfs to be procfs, then PID beneath it
// (openat2 RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_XDEV).
Result<UniqueFd> open_proc_pid(pid_t pid, const char* proc = "/proc");

// Writes `content` to `name` beneath the directory from open_proc_pid, opened the same way, in one write.
Result<void> write_proc_file(int pid_dir, const char* name, std::string_view content);

}  // namespace husk
