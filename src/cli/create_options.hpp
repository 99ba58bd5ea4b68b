// The flags create and run share (runc's spelling).
#pragma once

#include "cli/cli.hpp"

namespace husk::cli {

po::options_description create_options_description();
// A malformed --timeout, --kill-grace or --stop-signal is an error naming the flag.
Result<CreateOptions> read_create_options(const po::variables_map& vm);

}  // namespace husk::cli
