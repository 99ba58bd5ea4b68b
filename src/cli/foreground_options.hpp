// What the foreground verbs (run, and sandbox) share beyond create's flags: --output-format, and the refused
// verdict a caller still gets when the command line itself does not parse.
#pragma once

#include "cli/cli.hpp"

namespace husk::cli {

// --verdict FILE, --verdict-fd N, --output-format text|json (docs/husk.8.md, VERDICT and OUTPUT FORMAT).
void add_foreground_options(OptionSet& options);
// Reads them into `run`. A refused value (both targets, a negative fd, an unknown format) is an error naming the
// flag, with `run` still set where the refusal can be delivered.
Result<void> read_foreground_options(const OptionValues& values, RunOptions& run);
// A run or sandbox refused before anything exists: the message, and the `refused` verdict to the target and,
// with json, as the stream's one line. Returns the status, 2 (usage).
int refuse_run(const Globals& globals, const char* verb, const RunOptions& run, const std::string& id,
               const std::string& message);
// The id as given, parsed; an invalid one is refused (refusal_status), its verdict delivered.
std::optional<ContainerId> checked_run_id(const Globals& globals, const char* verb, const RunOptions& run,
                                          const std::string& id);

// parse_verb refused the command line (`message`, already printed): the `refused` verdict (status `status`) to
// the --verdict / --verdict-fd / --output-format json its raw words name (cli/raw_flags.hpp).
void deliver_unparsed_refusal(const Globals& globals, const char* verb, const Args& args, const std::string& message,
                              int status);

}  // namespace husk::cli
