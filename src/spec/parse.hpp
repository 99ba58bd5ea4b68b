// config.json (runtime-spec 1.3.0) → husk::spec::Spec. Parsing checks JSON types and records which known
// but unimplemented features were requested (Spec::unsupported); the rules live in validate.hpp.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/json_tree.hpp"
#include "husk/error.hpp"
#include "husk/spec.hpp"

namespace husk::spec {

// Errors: "invalid JSON: <yajl's message>" or "<json path>: expected a string" and the like.
// Unknown properties are ignored, as config.md "Extensibility" requires.
Result<Spec> parse_config(std::string_view json);
// The same for a document parsed already (create keeps the tree to write the config it stores).
Result<Spec> parse_config(const JsonTree& tree);

// A lone process object, as `exec --process process.json` receives it; paths are relative to it
// ("args[0]: expected a string"). Unsupported features are appended to `unsupported`.
Result<Process> parse_process_config(std::string_view json, std::vector<std::string>& unsupported);

// A lone linux.resources object, as `update --resources FILE` receives it ("memory.limit: ...").
Result<Resources> parse_resources_config(std::string_view json);

}  // namespace husk::spec
