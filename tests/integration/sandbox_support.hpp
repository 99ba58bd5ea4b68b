// What the `husk sandbox` tests share: the command line of one sandbox.
#pragma once

#include <string>
#include <vector>

namespace husk::test {

// `sandbox --id ID FLAGS... -- PROGRAM...` (without husk and --root: Sandbox::husk adds them).
inline std::vector<std::string> sandbox_args(const std::string& id, const std::vector<std::string>& flags,
                                             const std::vector<std::string>& program) {
    std::vector<std::string> args = {"sandbox", "--id", id};
    args.insert(args.end(), flags.begin(), flags.end());
    args.push_back("--");
    args.insert(args.end(), program.begin(), program.end());
    return args;
}

}  // namespace husk::test
