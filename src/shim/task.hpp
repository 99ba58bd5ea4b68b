// What the shim holds of each task: its init (a hosted container: this process is its monitor) and the exec
// processes containerd added, each with its stdio, status, exit and the Wait calls waiting for it.
#pragma once

#include <sys/types.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "container/hosted.hpp"
#include "husk/spec.hpp"
#include "monitor/wait.hpp"
#include "shim/stdio.hpp"
#include "ttrpc/frame.hpp"
#include "ttrpc/task_api.hpp"

namespace husk::shim {

struct TaskProcess {
    std::string exec_id;  // empty: the task's init
    pid_t pid = 0;
    UniqueFd pidfd;
    ttrpc::TaskStatus status = ttrpc::TaskStatus::created;
    std::uint32_t exit_status = 0;
    ttrpc::Timestamp exited_at;
    std::string stdin_path, stdout_path, stderr_path;
    bool terminal = false;
    ProcessStdio stdio;       // until the process exists: then its ends are closed, the relays started
    ProcessRelays relays;
    UniqueFd console;         // the pty master (ResizePty)
    std::optional<spec::Process> spec;  // an exec's process, until Start
    std::uint64_t pidfd_key = 0;        // an exec's pidfd in the loop
    std::vector<std::function<void(const ttrpc::Response&)>> waiters;
};

struct Task {
    explicit Task(ContainerId container_id) : id(std::move(container_id)) {}
    ContainerId id;
    std::string bundle;
    bool rootfs_mounted = false;
    std::unique_ptr<container::HostedInit> host;
    std::unique_ptr<monitor::InitWait> wait;
    std::uint64_t wait_block = 0;
    TaskProcess init;
    std::map<std::string, TaskProcess> execs;
    // memory.events, watched with inotify: a rise of oom_kill is containerd's /tasks/oom.
    UniqueFd cgroup_dir, inotify;
    std::uint64_t inotify_key = 0;
    std::uint64_t oom_kills = 0;
};

}  // namespace husk::shim
