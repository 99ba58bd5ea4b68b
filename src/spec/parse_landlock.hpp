// process.landlock (runtime-spec proposal PR #1241; docs/landlock.md): JSON → spec::Landlock. Not a public header.
#pragma once

#include "husk/error.hpp"
#include "husk/spec.hpp"
#include "base/json_reader.hpp"

namespace husk::spec::detail {

// Checks JSON types only; access names and ABI support are the landlock module's business
// (prepare_landlock), which names the same field paths.
Result<void> parse_landlock(const json::Node& node, Landlock& out);

}  // namespace husk::spec::detail
