// A container whose monitor is the calling process, one that watches several processes in one loop (husk's
// containerd shim, src/shim/). Create makes init this process's child and records this process as its monitor,
// as `husk run` in the foreground does; the caller then waits for init in its own epoll (monitor::InitWait) and
// records the exit here. Every other verb (start, kill, pause, delete...) is the library's, as for any container.
#pragma once

#include <sys/types.h>

#include <string>

#include "husk/container.hpp"
#include "husk/unique_fd.hpp"
#include "monitor/policy.hpp"
#include "monitor/wait.hpp"
#include "state/record.hpp"

namespace husk::container {

struct HostedInit {
    explicit HostedInit(monitor::MonitorPlan monitor_plan) : plan(std::move(monitor_plan)) {}
    pid_t pid = 0;
    UniqueFd pidfd;
    UniqueFd console;  // the pty master, when process.terminal
    monitor::MonitorPlan plan;
    // For monitor::InitWait: the sync socket, husk-init's report and one watcher per limit of the config
    // (run.husk.*), which it names; the fds stay owned by `sync` and `init_report` below.
    monitor::WaitOptions wait;
    UniqueFd sync, init_report;
};

// Init's fds 0-2 are the caller's at the time of the call; a terminal's master is kept (console), never sent.
// The create lock is released when this returns, so `start_container` can follow.
Result<HostedInit> create_hosted(const Runtime& runtime, const ContainerId& id, const CreateOptions& options);

// Init has ended (`status` from InitWait): the verdict goes into the record (monitor::record_exit). The record,
// or nothing when it was deleted meanwhile; `exit_code` is what `husk run` in the foreground would exit with.
struct HostedExit {
    std::optional<state::Record> record;
    int exit_code = 255;
};
HostedExit record_hosted_exit(const HostedInit& init, const monitor::ExitStatus& status);

// A process in the container (`husk exec` of the process given), this process's child; its fds 0-2 are the
// caller's at the time of the call. With process.terminal the pty master is kept (console).
struct HostedExec {
    pid_t pid = 0;
    UniqueFd pidfd;
    UniqueFd console;
};
Result<HostedExec> exec_hosted(const Runtime& runtime, const ContainerId& id, spec::Process process);

}  // namespace husk::container
