// The runtime-spec features document (features.md): only what this build of husk really implements.
#pragma once

#include <string>
#include <vector>

namespace husk::cli {

// The mount options husk accepts (each is tested to parse).
const std::vector<std::string>& feature_mount_options();
std::string features_json();

}  // namespace husk::cli
