// The CLI's shared pieces: global options, the verb table, output of errors (the only place that logs).
#pragma once

#include <cstdio>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cli/options.hpp"
#include "husk/container.hpp"
#include "husk/error.hpp"

namespace husk::cli {

enum class LogFormat { text, json };

struct Globals {
    Runtime runtime;
    std::string log_file;
    LogFormat log_format = LogFormat::text;
    bool debug = false;
};

using Args = std::vector<std::string>;

// One verb: parses its own flags from args (everything after the verb name) and returns the exit status.
struct Verb {
    const char* name;
    const char* summary;
    int (*main)(const Globals&, const Args&);
};

const std::vector<Verb>& verbs();

// Parses a verb's args: its options, --help, and its operands, each the value of the option `operands` names at
// its position ("id", "signal", "action": hidden options, never in --help). Returns false after printing help
// (--help) or a usage error; *status is the exit code, and *error (when given) the usage error's text.
bool parse_verb(const char* verb, const char* usage, const OptionSet& options,
                std::initializer_list<std::string_view> operands, const Args& args, OptionValues& out, int* status,
                std::string* error = nullptr);

// Where husk's own messages go: stderr, or the fd of the global --message-fd (husk(8): kept apart from the
// container's stderr, which is husk's stderr). Every message of the CLI is written there, never to stdout.
std::FILE* messages();
// printf to messages(), with SIGPIPE ignored for the write: a reader that went away loses the message, and
// husk still ends with the status it owes its caller (the program's), not killed by SIGPIPE.
void say(const char* format, ...) __attribute__((format(printf, 1, 2)));
// Checked: an open fd, not 0 or 1. Made close-on-exec by the caller once husk has re-executed itself.
Result<void> set_message_fd(int fd);

// Prints "husk: <context>: <message>" to messages() and, with --log, one line in the chosen format. Returns 1.
int report(const Globals& globals, const std::string& context, const Error& error);
// A verb's container id, parsed once, before anything is opened: an invalid one is reported (status 1, as any
// error) and gives nothing.
std::optional<ContainerId> checked_id(const Globals& globals, const char* verb, const std::string& text);
void warn(const Globals& globals, const std::string& message);
void debug(const Globals& globals, const std::string& message);

// For scan_raw_args (cli/raw_args.hpp): whether the option spelt so ("--cwd", "-e") takes a value, asked of the
// verb's own options (an abbreviation is not guessed: it takes none).
inline auto option_takes_value(const OptionSet& options) {
    return [&options](std::string_view spelling) {
        const Option* option = options.find(spelling.starts_with("--") ? spelling.substr(2) : spelling);
        return option != nullptr && option->takes != Takes::nothing;
    };
}

}  // namespace husk::cli
