// A bundle as create sees it: absolute paths, the config text as read, the parsed and validated spec.
#pragma once

#include <string>

#include "husk/container.hpp"
#include "husk/spec.hpp"
#include "spec/annotations.hpp"

namespace husk::container {

struct Bundle {
    std::string dir;          // absolute
    std::string config_text;  // kept in the state dir: delete runs poststop hooks even if the bundle is gone
    spec::Spec spec;
    spec::HuskAnnotations husk;  // spec's run.husk.* annotations, parsed once by validate
    std::string rootfs;       // absolute, symlinks resolved
};

Result<Bundle> load_bundle(const CreateOptions& options);
// The path with symlinks resolved, which must be a directory; errors name `what` ("bundle", "rootfs").
Result<std::string> absolute_directory(const std::string& path, const char* what);

}  // namespace husk::container
