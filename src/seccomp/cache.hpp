// The BPF program libseccomp compiled for a profile, kept in the state root so that the next container with
// the same profile on the same boot, started by the same husk binary, loads it instead of compiling again:
// libseccomp's compile of husk's default profile is about 1 ms of CPU, the largest step of preparing a
// sandbox (docs/ARCHITECTURE.md, "Starting fast"). Not a public header.
//
// Exactly what a compile would give: the key is every input of the compile, byte for byte (the resolved
// profile: default action, architectures, each rule's number, action and comparisons), plus what could change
// its output between two runs: libseccomp's version, the husk binary (device, inode, size, times of
// /proc/self/exe) and the boot (the kernel, whose supported actions libseccomp checks). The file holds the
// whole key and is used only when it matches exactly; a hash only names it. A file that is not a regular
// file, not the caller's own or writable by anyone else, or is malformed, is ignored and compiled over.
// Whoever may write the state root may already change every container's record and config there.
#pragma once

#include <linux/filter.h>

#include <optional>
#include <string>
#include <vector>

#include "seccomp/profile.hpp"

namespace husk::seccomp {

// The directory under the state root: a dot name, which no container id can take.
inline constexpr const char* cache_dir_name = ".seccomp-cache";

// Empty when the identity of the run cannot be read (then nothing is cached).
std::string program_cache_key(const Profile& profile);

// The program stored under key in state_root's cache, if there is one that matches it exactly.
std::optional<std::vector<sock_filter>> read_cached_program(const std::string& state_root, const std::string& key);

// Best effort: a cache that cannot be written is no error (the next run compiles again).
void store_cached_program(const std::string& state_root, const std::string& key, const std::vector<sock_filter>& program);

}  // namespace husk::seccomp
