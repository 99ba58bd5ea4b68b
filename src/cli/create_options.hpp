// The flags create and run share (runc's spelling), and the flags of husk's settings, which sandbox takes too.
#pragma once

#include <string>

#include "cli/cli.hpp"

namespace husk::cli {

po::options_description create_options_description();
// A malformed flag of a husk setting is an error naming the flag.
Result<CreateOptions> read_create_options(const po::variables_map& vm);
// One flag per husk setting that has one (spec/settings.hpp: --timeout, --net-allow, --die-with-parent, ...).
po::options_description setting_options_description(const std::string& caption);
// Those flags into typed settings, each read by its annotation's parser.
Result<spec::HuskSettings> read_setting_flags(const po::variables_map& vm);

}  // namespace husk::cli
