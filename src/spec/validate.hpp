// Pure checks of a parsed Spec against runtime-spec 1.3.0 and husk's limits: no system calls, no host
// state. Each function reports the first problem, naming its JSON path.
#pragma once

#include <string_view>

#include "husk/error.hpp"
#include "husk/spec.hpp"
#include "spec/settings.hpp"

namespace husk::spec {

// e.g. `mounts[3].destination: must be an absolute path, got "tmp"`, or
// `unsupported configuration: linux.seccomp, process.scheduler (husk does not implement these yet)`.
// A valid spec's husk settings come back: its run.husk.* annotations with `overrides` (the command line's
// flags) applied, checked once against each other and the rest of the spec, so create hands on what each module
// needs and never reads a setting twice.
Result<HuskSettings> validate(const Spec& spec, const HuskSettings& overrides = {});

}  // namespace husk::spec
