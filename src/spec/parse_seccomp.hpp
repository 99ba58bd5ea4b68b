// linux.seccomp (config-linux.md "Seccomp"): JSON → spec::Seccomp. Not a public header.
#pragma once

#include "husk/error.hpp"
#include "husk/spec.hpp"
#include "base/json_reader.hpp"

namespace husk::spec::detail {

// Checks JSON types and the schema's required properties only; action, architecture, operator and flag
// names are resolved by the seccomp module (prepare_seccomp), which names the same field paths.
Result<void> parse_seccomp(const json::Node& node, Seccomp& out);

}  // namespace husk::spec::detail
