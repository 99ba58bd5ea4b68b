// What the foreground verbs (run, and sandbox) share beyond create's flags: --output-format, and the refused
// verdict a caller still gets when the command line itself does not parse.
#pragma once

#include "cli/cli.hpp"

namespace husk::cli {

// --output-format text|json (docs/husk.8.md, OUTPUT FORMAT).
void add_output_format_option(po::options_description& options);
// A value other than text or json is an error naming the flag.
Result<OutputFormat> read_output_format(const po::variables_map& vm);

// parse_verb refused the command line (`message`, already printed): the `refused` verdict (status `status`) to
// the --verdict / --verdict-fd / --output-format json its raw words name (cli/raw_flags.hpp).
void deliver_unparsed_refusal(const Globals& globals, const char* verb, const Args& args, const std::string& message,
                              int status);

}  // namespace husk::cli
