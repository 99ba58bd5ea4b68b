// ExecPlan: what the child needs to become the workload: argv/envp as C arrays, the executable candidates from
// the container's PATH, cwd, identity strings. Built in the parent so the child only makes system calls.
#pragma once

#include <string>
#include <vector>

#include "husk/error.hpp"
#include "husk/spec.hpp"

namespace husk::process {

struct ExecPlan {
    std::vector<std::string> args, env;
    std::vector<char*> argv, envp;        // point into args/env, NULL-terminated
    std::vector<std::string> candidates;  // paths to try, in PATH order
    Error not_found;                      // the error when no candidate is executable (runc's wording)
    std::string cwd;
    std::string hostname, domainname;
    bool set_hostname = false, set_domainname = false;
    bool no_new_privileges = false;
    bool terminal = false;
    unsigned short console_rows = 0, console_columns = 0;
    int preserve_fds = 0;
};

Result<ExecPlan> prepare_exec(const spec::Spec& spec, int preserve_fds);

// Child side: the first candidate that is an executable regular file, or plan.not_found.
Result<const char*> find_executable(const ExecPlan& plan) noexcept;

}  // namespace husk::process
