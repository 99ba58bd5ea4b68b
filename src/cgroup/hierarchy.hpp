// Where cgroups live: finding the v2 mount, turning linux.cgroupsPath into a path below the v2 root, and
// opening directories only after checking they are on cgroup2 (so nothing here can write to cgroup v1).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "cgroup/location.hpp"
#include "husk/error.hpp"
#include "husk/unique_fd.hpp"

namespace husk::cgroup {

// The subtree husk owns below the v2 root: relative and empty cgroupsPaths go here.
inline constexpr std::string_view husk_subtree = "/husk";
// Where tenants' shared parents live (shared_parent.hpp); resolve_cgroup_path puts no container here.
inline constexpr std::string_view shared_parents_subtree = "/husk/tenants";

// linux.cgroupsPath → "/a/b" relative to the v2 root. Absolute paths are taken as they are, relative and
// empty ones go below /husk ("" → "/husk/<id>"). The systemd form "slice:prefix:name", ".." components and
// paths in /husk/tenants are refused.
Result<std::string> resolve_cgroup_path(std::string_view cgroups_path, std::string_view container_id);

// Checks a path read back from state: absolute, no "." or ".." components, not the root.
Result<void> validate_cgroup_path(std::string_view path);

// The mount point of the first cgroup2 entry of a /proc/PID/mountinfo text (octal escapes decoded).
Result<std::string> parse_v2_mount(std::string_view mountinfo);

// Opens the mount directory (O_DIRECTORY|O_RDONLY) and proves with fstatfs that it is cgroup2.
Result<UniqueFd> open_v2_root(const std::string& mount);

// Opens the cgroup's directory, checked to be on cgroup2, for CLONE_INTO_CGROUP and *at() calls.
Result<UniqueFd> open_cgroup_dir(const CgroupLocation& cgroup);

// Reads or writes an interface file ("cgroup.procs") of the cgroup open at dir_fd; `where` (mount + path)
// names it in errors. Writes are one write(2), as cgroupfs expects.
Result<std::string> read_cgroup_file(int dir_fd, const char* name, const std::string& where);
Result<void> write_cgroup_file(int dir_fd, const char* name, std::string_view content, const std::string& where);

// Whether the cgroup open at dir_fd has an interface file `name`.
bool file_exists(int dir_fd, std::string_view name);

// The whitespace-separated words of an interface file ("cpu memory pids\n" of cgroup.controllers).
std::vector<std::string> split_words(std::string_view text);
bool list_contains(const std::vector<std::string>& list, std::string_view item);

// The value of `key` in a flat-keyed file such as cgroup.events ("populated 1\nfrozen 0\n"); -1 if absent.
long long flat_keyed_value(std::string_view text, std::string_view key);

// The names of the child cgroups (subdirectories) of the cgroup open at dir_fd.
Result<std::vector<std::string>> list_child_cgroups(int dir_fd, const std::string& where);

// "/husk/x" → "husk/x" for *at() calls relative to the root fd; "/" → ".".
std::string relative_to_root(std::string_view path);

}  // namespace husk::cgroup
