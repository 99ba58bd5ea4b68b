// Verbs that take just an id: parse, then call one library function.
#pragma once

#include <optional>

#include "cli/cli.hpp"

namespace husk::cli {

// Parses `husk <verb> [--help] ID`; returns nothing (with *status) when there is nothing more to do: help, a usage
// error (2), an invalid id (reported, 1).
std::optional<ContainerId> parse_id_only(const Globals& globals, const char* verb, const Args& args, int* status);

}  // namespace husk::cli
