// The per-section parsers behind parse_config, shared between parse*.cpp files. Not a public header.
#pragma once

#include <string>
#include <vector>

#include "husk/error.hpp"
#include "husk/spec.hpp"
#include "base/json_reader.hpp"

namespace husk::spec::detail {

// Each parser fills `out` from an object node; `unsupported` collects the JSON paths of requested
// features husk does not implement.
Result<void> parse_process(const json::Node& node, Process& out, std::vector<std::string>& unsupported);
Result<void> parse_linux(const json::Node& node, Linux& out, std::vector<std::string>& unsupported);
Result<void> parse_resources(const json::Node& node, Resources& out);
Result<void> parse_id_mapping(const json::Node& node, IdMapping& out);

// Appends node.path() to `unsupported` when the node carries a value (not null, {}, [] or "").
void note_unsupported(const json::Node& node, std::vector<std::string>& unsupported);

}  // namespace husk::spec::detail
