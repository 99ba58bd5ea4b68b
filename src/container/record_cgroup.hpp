// The container's cgroup as its record names it. state.json keeps the location as two strings (cgroupMount,
// cgroupPath: a public format, and state/ does not know the cgroup module); the verbs act on it as one value.
#pragma once

#include <optional>

#include "cgroup/location.hpp"
#include "state/record.hpp"

namespace husk::container {

// Nothing when the container has no cgroup (created with --cgroup-manager disabled).
inline std::optional<cgroup::CgroupLocation> cgroup_of(const state::Record& record) {
    if (record.cgroup_path.empty()) return std::nullopt;
    return cgroup::CgroupLocation{record.cgroup_mount, record.cgroup_path};
}

}  // namespace husk::container
