// Pure checks of a parsed Spec against runtime-spec 1.3.0 and husk's limits: no system calls, no host
// state. Each function reports the first problem, naming its JSON path.
#pragma once

#include <string_view>

#include "husk/error.hpp"
#include "husk/spec.hpp"
#include "spec/annotations.hpp"

namespace husk::spec {

// e.g. `mounts[3].destination: must be an absolute path, got "tmp"`, or
// `unsupported configuration: linux.seccomp, process.scheduler (husk does not implement these yet)`.
// A valid spec's run.husk.* annotations come back parsed, so create reads them once and hands on what each
// module needs.
Result<HuskAnnotations> validate(const Spec& spec);

}  // namespace husk::spec
