// Verbs that take just an id: parse, then call one library function.
#pragma once

#include <string>

#include "cli/cli.hpp"

namespace husk::cli {

// Parses `husk <verb> [--help] ID`; returns false (with *status) when there is nothing more to do.
bool parse_id_only(const char* verb, const Args& args, std::string& id, int* status);

}  // namespace husk::cli
