// WorkloadPlan: the process a recipe ends in (process.args run by execve): argv/envp as C arrays, the executable
// candidates from the container's PATH, cwd, the terminal and the fds it inherits. Built in the parent so the child
// only makes system calls. The same for the container's init (child_main) and a process `husk exec` adds
// (exec_main); what belongs to the container rather than to its process (the UTS names) is not here.
#pragma once

#include <string>
#include <vector>

#include "husk/error.hpp"
#include "husk/spec.hpp"

namespace husk::process {

struct WorkloadPlan {
    std::vector<std::string> args, env;
    std::vector<char*> argv, envp;        // point into args/env, NULL-terminated
    std::vector<std::string> candidates;  // paths to try, in PATH order
    Error not_found;                      // the error when no candidate is executable (runc's wording)
    std::string cwd;
    bool no_new_privileges = false;
    bool terminal = false;
    unsigned short console_rows = 0, console_columns = 0;
    int preserve_fds = 0;
};

Result<WorkloadPlan> prepare_workload(const spec::Spec& spec, int preserve_fds);

// Child side: the first candidate that is an executable regular file, or plan.not_found.
Result<const char*> find_executable(const WorkloadPlan& plan) noexcept;

}  // namespace husk::process
