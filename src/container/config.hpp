// A container's effective configuration (docs/ARCHITECTURE.md, "The effective config"): the config it was created
// with, with the husk settings of the command line applied and validated once, by create. create stores it in the
// state dir as config.json; every verb after create reads it here, never the bundle's file, so a setting has one
// meaning whether a flag or an annotation spelled it.
#pragma once

#include <memory>
#include <optional>

#include "cgroup/location.hpp"
#include "husk/container_id.hpp"
#include "husk/spec.hpp"
#include "spec/settings.hpp"
#include "state/record.hpp"
#include "state/state_dir.hpp"

namespace husk::container {

struct ContainerConfig {
    ContainerId id;
    spec::Spec spec;          // annotations included: husk's settings written as theirs
    spec::HuskSettings husk;  // spec's run.husk.* annotations, parsed
    // Where the container's cgroup is (create decided it from linux.cgroupsPath, --cgroup-manager and the
    // tenant, and named it in the record before making it); nothing without one.
    std::optional<cgroup::CgroupLocation> cgroup;
};

// The state dir's config.json, parsed and validated again (a file changed since create is refused, not
// trusted), with the container's cgroup from its record.
// The last config a thread read is kept with its text, and an identical text is not parsed again (`husk run`
// reads it in start and in delete).
Result<ContainerConfig> read_config(const state::StateDir& dir, const state::Record& record);

// The same config without its id and cgroup, shared instead of copied: for a verb that reads a part of it (start
// its hooks, delete its hooks and tenant). Valid as long as the caller holds it.
struct ParsedConfig {
    spec::Spec spec;
    spec::HuskSettings husk;
};
Result<std::shared_ptr<const ParsedConfig>> read_parsed_config(const state::StateDir& dir);

// What create knows already, for read_config in the same process: `text`, the config.json it stored, parses and
// validates to `config`. The stored text is the bundle's as read, or with only its annotations rewritten
// (spec::config_with_annotations), and those come from config.husk by spec::annotations_of, whose settings read
// back as they were written (spec/settings_test.cpp); every other member is parsed from the same JSON.
void remember_config(std::string text, const ContainerConfig& config);

// The container's cgroup as its record names it. state.json keeps the location as two strings (cgroupMount,
// cgroupPath: a public format, and state/ does not know the cgroup module); the verbs act on it as one value.
// Nothing when the container has no cgroup (created with --cgroup-manager disabled).
inline std::optional<cgroup::CgroupLocation> cgroup_of(const state::Record& record) {
    if (record.cgroup_path.empty()) return std::nullopt;
    return cgroup::CgroupLocation{record.cgroup_mount, record.cgroup_path};
}

}  // namespace husk::container
