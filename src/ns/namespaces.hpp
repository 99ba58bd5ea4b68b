// Namespaces: which to create (clone3 flags), which to join by path (setns, type-checked), user-namespace id
// maps and time-namespace offsets. runtime-spec config-linux.md "Namespaces", "User namespace mappings",
// "Offset for Time Namespace".
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "husk/error.hpp"
#include "husk/spec.hpp"
#include "husk/unique_fd.hpp"
#include "ns/id_maps.hpp"

namespace husk::ns {

struct Join {
    UniqueFd fd;
    int type = 0;  // CLONE_NEW*
};

struct NamespacePlan {
    std::uint64_t clone_flags = 0;    // created by clone3 itself
    std::uint64_t unshare_flags = 0;  // created by the child after joining a user namespace by path
    UniqueFd join_user;               // setns first, so later namespaces belong to it
    UniqueFd join_pid;                // pid and time namespaces are entered "for children": by the spawner
    UniqueFd join_time;               // only for `exec` (init's time namespace); a config cannot join one
    std::vector<Join> joins;          // the rest, joined by the child
    bool new_user = false;
    bool new_net = false;
    bool new_uts = false;
    bool new_mount = false;
    bool new_time = false;
    std::string uid_map, gid_map;     // /proc/PID/uid_map content
    MapWriter map_writer = MapWriter::husk;
    std::vector<spec::IdMapping> uid_mappings, gid_mappings;  // for newuidmap/newgidmap
    // Container id 0 is mapped for uid and gid: init becomes root in the new user namespace. Without it (husk
    // without root mapping one id, docs/rootless.md) init keeps the ids it was cloned with, mapped or not, and
    // with them the namespace's capabilities until the credentials step.
    bool root_mapped = true;
    std::string time_offsets;         // /proc/self/timens_offsets content
};

// `rootless`: husk runs without root (docs/rootless.md); decides who writes the id maps.
Result<NamespacePlan> prepare_namespaces(const spec::Linux& linux, bool rootless);

// Spawner side, around clone3: enter the pid namespace to join and/or a fresh time namespace with its offsets
// for the next child only, then return to our own.
class ForChildren {
public:
    static Result<ForChildren> enter(const NamespacePlan& plan);
    Result<void> restore();
    // Stays where enter() went: a spawner that joined a container's user namespace (husk exec without root)
    // may not return to the host's pid namespace, and starts no other process.
    void stay() noexcept {
        own_pid_.reset();
        own_time_.reset();
    }
private:
    UniqueFd own_pid_, own_time_;
};

// Spawner side, after clone3: uid_map/gid_map of the new user namespace, by plan.map_writer.
Result<void> write_id_maps(const NamespacePlan& plan, pid_t child);

// Child side: join namespaces given by path (user first), create those that had to wait for that join.
Result<void> apply_namespaces(const NamespacePlan& plan) noexcept;

}  // namespace husk::ns
