// The flags create and run share (runc's spelling).
#pragma once

#include <map>
#include <string>

#include "cli/cli.hpp"

namespace husk::cli {

po::options_description create_options_description();
// A malformed --timeout, --kill-grace or --stop-signal is an error naming the flag.
Result<CreateOptions> read_create_options(const po::variables_map& vm);
// husk's limits (--timeout, --kill-grace, --stop-signal, --output-limit, --cpu-limit, --tenant, --net-allow,
// --net-ops, --net-ops-kill) and their annotations.
po::options_description limit_options_description(const std::string& caption);
Result<void> read_limit_flags(const po::variables_map& vm, std::map<std::string, std::string>& annotations);
}  // namespace husk::cli
