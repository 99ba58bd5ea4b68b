// Who writes a new user namespace's uid_map and gid_map (user_namespaces(7), "Defining user and group ID
// mappings"). As root husk writes them itself. Without root (docs/rootless.md) the kernel lets a process map only
// its own uid and gid (one line each, setgroups denied first); any other host id goes through Debian's setuid
// helpers newuidmap(1) and newgidmap(1), which check the caller's ranges in /etc/subuid and /etc/subgid.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "husk/error.hpp"
#include "husk/spec.hpp"

namespace husk::ns {

enum class MapWriter {
    husk,       // root: uid_map and gid_map written directly
    own_ids,    // without root, the caller's own uid and gid alone: "deny" to setgroups, then the maps
    helpers,    // without root, anything else: newuidmap and newgidmap
};

inline constexpr const char* newuidmap_path = "/usr/bin/newuidmap";
inline constexpr const char* newgidmap_path = "/usr/bin/newgidmap";

// How the maps of linux.uidMappings / gidMappings are written by a caller with effective ids euid/egid
// (rootless: not root). With helpers, both must be installed: an error names the package otherwise.
Result<MapWriter> choose_map_writer(const std::vector<spec::IdMapping>& uid_mappings,
                                    const std::vector<spec::IdMapping>& gid_mappings, bool rootless, uid_t euid,
                                    gid_t egid);

// Spawner side: runs `helper PID containerID hostID size...` for one map; its stderr is the error's detail.
Result<void> run_map_helper(const char* helper, pid_t child, const std::vector<spec::IdMapping>& maps,
                            const char* field);

}  // namespace husk::ns
