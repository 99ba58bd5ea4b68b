// child_main: the container init from clone3 to execve, as one ordered recipe.
#pragma once

#include <vector>

#include "process/container_plan.hpp"

namespace husk::process {

struct ChildFds {
    int sync = -1;       // our end of the sync socketpair
    int exec_fifo = -1;  // <state>/exec.fifo opened O_RDWR: blocks in read() until `husk start` writes
    const std::vector<int>* close_first = nullptr;  // the parent's fds that must not live on in init
    int stdout_pipe = -1;  // the output pump's pipes (run.husk.output-limit): become fds 1 and 2 before exec
    int stderr_pipe = -1;
    int parent_death_signal = 0;  // --die-with-parent: PR_SET_PDEATHSIG once the credentials are final; 0: none
};

[[noreturn]] void child_main(const ContainerPlan& plan, ChildFds fds, ChildBuffers& buffers) noexcept;

}  // namespace husk::process
