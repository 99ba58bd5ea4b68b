// The flags create and run share (runc's spelling).
#pragma once

#include <map>
#include <string>

#include "cli/cli.hpp"

namespace husk::cli {

po::options_description create_options_description();
// A malformed --timeout, --kill-grace or --stop-signal is an error naming the flag.
Result<CreateOptions> read_create_options(const po::variables_map& vm);
// husk's limits (--timeout, --kill-grace, --stop-signal, --output-limit, --cpu-limit) and their annotations.
po::options_description limit_options_description(const std::string& caption);
Result<void> read_limit_flags(const po::variables_map& vm, std::map<std::string, std::string>& annotations);
// --verdict FILE / --verdict-fd N (run and sandbox). A refused pair leaves the target set where a refusal can
// still be delivered.
po::options_description verdict_options_description();
Result<void> read_verdict_target(const po::variables_map& vm, VerdictTarget& target);
// A run or sandbox refused before anything exists: the message on stderr and, when a target is set, the verdict
// `refused`. Returns the status, 2 (usage).
int refuse_run(const Globals& globals, const char* verb, const VerdictTarget& target, const std::string& id,
               const std::string& message);
// Flags that did not parse (an unknown option, a value missing): the verdict `refused` still goes where
// --verdict FILE, --verdict=FILE or --verdict-fd N in args ask, when exactly one of them is there; parse_verb
// has printed the message. Returns 2.
int refuse_unparsed_run(const Globals& globals, const char* verb, const Args& args, const std::string& message);

}  // namespace husk::cli
