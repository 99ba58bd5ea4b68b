// A verb's command line that did not parse (an unknown flag, a bad value) still owes its caller the one verdict it
// asked for (husk(8) VERDICT): the few flags that say where it goes, read from the raw words without the parser.
#pragma once

#include <string>
#include <vector>

namespace husk::cli {

struct RawVerdictFlags {
    std::string verdict_path;  // --verdict FILE
    int verdict_fd = -1;       // --verdict-fd N (a decimal fd, else ignored)
    bool json = false;         // --output-format json
};

// The first --verdict, --verdict-fd and --output-format, as `--flag VALUE` or `--flag=VALUE` (their full
// spellings only: the parser's abbreviations are not guessed). Words after "--" are the program's and never read.
// A value that is itself a flag ("--verdict --keep") is no value.
RawVerdictFlags scan_verdict_flags(const std::vector<std::string>& args);

}  // namespace husk::cli
