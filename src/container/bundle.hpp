// A bundle as create sees it: absolute paths, the config text as read, and the container's effective config made
// from it (container/config.hpp): parsed, with the command line's settings applied, validated.
#pragma once

#include <string>

#include "base/json_tree.hpp"
#include "container/config.hpp"
#include "husk/container.hpp"

namespace husk::container {

struct Bundle {
    std::string dir;          // absolute
    std::string rootfs;       // absolute, symlinks resolved
    std::string config_text;  // the file or the in-memory config, as read
    JsonTree config_tree;     // ... and parsed
    ContainerConfig config;
};

Result<Bundle> load_bundle(const ContainerId& id, const CreateOptions& options);
// Writes config.husk into config.spec's annotations (spec::annotations_of) and returns the config.json create
// stores: the text as read with those annotations, the text as read itself when they are the annotations it has
// (it then parses to the same config). Called once the settings are final (after a tenant's clamp).
Result<std::string> settle_config(Bundle& bundle);
// The path with symlinks resolved, which must be a directory; errors name `what` ("bundle", "rootfs").
Result<std::string> absolute_directory(const std::string& path, const char* what);

}  // namespace husk::container
