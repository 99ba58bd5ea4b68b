// husk without root (docs/rootless.md): what the container layer decides for it.
#pragma once

#include "husk/error.hpp"
#include "spec/sandbox_config.hpp"

namespace husk::container {

// The sandbox's user namespace without root: the caller's uid and gid as ids 0 and a subordinate range of at
// least 65535 ids (/etc/subuid, /etc/subgid) as 1-65535 when newuidmap and newgidmap are installed, so the
// program (65534) holds none of the caller's ids; else the caller's own ids alone, mapped as 65534. No device
// rules (settings.device_rules). --no-userns is refused: without root nothing else can build a sandbox.
Result<void> rootless_sandbox_maps(spec::SandboxSettings& settings);

}  // namespace husk::container
