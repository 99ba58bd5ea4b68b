// The flags create and run share (runc's spelling), and the flags of husk's settings, which sandbox takes too.
#pragma once

#include <string_view>

#include "cli/cli.hpp"

namespace husk::cli {

OptionSet create_options();
// A malformed flag of a husk setting is an error naming the flag.
Result<CreateOptions> read_create_options(const OptionValues& values);
// One flag per husk setting that has one (spec/settings.hpp: --timeout, --net-allow, --die-with-parent, ...), in a
// new group of `options` under `caption`.
void add_setting_options(OptionSet& options, std::string_view caption);
// Those flags into typed settings, each read by its annotation's parser.
Result<spec::HuskSettings> read_setting_flags(const OptionValues& values);

}  // namespace husk::cli
