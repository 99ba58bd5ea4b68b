// The task lifecycle of the Task service: create, start, exec, wait, delete, and what happens when a process
// ends. The remaining calls (kill, pids, pause, update, stats...) are in service_calls.cpp.
#include "shim/service.hpp"

#include <sys/epoll.h>
#include <sys/inotify.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <vector>

#include "base/fs.hpp"
#include "base/sys.hpp"
#include "cgroup/cgroup.hpp"
#include "cgroup/stats.hpp"
#include "shim/rootfs.hpp"
#include "shim/service_internal.hpp"
#include "shim/task.hpp"
#include "shim/task_options.hpp"
#include "spec/parse.hpp"

namespace husk::shim {

using ttrpc::Code;
using ttrpc::Response;

Response error_response(Code code, std::string message) { return Response{code, std::move(message), {}}; }
Response ok_response(std::string payload) { return Response{Code::ok, {}, std::move(payload)}; }

TaskService::TaskService(Loop& loop, Runtime runtime, Publisher& publisher, std::string ns)
    : loop_(loop), runtime_(std::move(runtime)), publisher_(publisher), ns_(std::move(ns)) {}

TaskService::~TaskService() = default;

Result<Task*> TaskService::find(const std::string& id) {
    auto found = tasks_.find(id);
    if (found == tasks_.end()) return fail_msg("task " + id + " not found", ErrorKind::not_found);
    return found->second.get();
}

Result<TaskProcess*> find_process(Task& task, const std::string& exec_id) {
    if (exec_id.empty()) return &task.init;
    auto found = task.execs.find(exec_id);
    if (found == task.execs.end()) return fail_msg("process " + exec_id + " of task " + task.id.str() + " not found", ErrorKind::not_found);
    return &found->second;
}

Response response_of(const Error& error, std::string_view prefix) {
    Code code = error.kind == ErrorKind::not_found ? Code::not_found : Code::unknown;
    return error_response(code, std::string(prefix) + error.message());
}

void TaskService::call(const ttrpc::Request& request, const Respond& respond) {
    if (request.service != "containerd.task.v2.Task")
        return respond(error_response(Code::unimplemented, "service " + request.service + ": not served by husk's shim"));
    const std::string& m = request.method;
    std::string_view p = request.payload;
    if (m == "Wait") return wait(p, respond);
    heavy_call_ = heavy_call_ || m == "Create" || m == "Start" || m == "Delete" || m == "Update";
    Response response = m == "Create"       ? create(p)
                        : m == "Start"      ? start(p)
                        : m == "Delete"     ? remove(p)
                        : m == "Exec"       ? exec(p)
                        : m == "State"      ? state(p)
                        : m == "Kill"       ? kill(p)
                        : m == "Pids"       ? pids(p)
                        : m == "Pause"      ? pause(p, false)
                        : m == "Resume"     ? pause(p, true)
                        : m == "ResizePty"  ? resize_pty(p)
                        : m == "CloseIO"    ? close_io(p)
                        : m == "Update"     ? update(p)
                        : m == "Stats"      ? stats(p)
                        : m == "Connect"    ? connect(p)
                        : m == "Shutdown"   ? shutdown(p)
                        : m == "Checkpoint" ? error_response(Code::unimplemented, "checkpoint is not supported by husk")
                                            : error_response(Code::unimplemented, "method " + m + ": not served by husk's shim");
    respond(response);
}

Response TaskService::create(std::string_view payload) {
    auto request = ttrpc::decode_create_task_request(payload);
    if (!request) return error_response(Code::invalid_argument, request.error().message());
    if (!request->checkpoint.empty()) return error_response(Code::unimplemented, "restoring a checkpoint is not supported by husk");
    auto id = ContainerId::parse(request->id);
    if (!id) return error_response(Code::invalid_argument, id.error().message());
    if (tasks_.contains(request->id)) return error_response(Code::already_exists, "task " + request->id + " already exists");
    auto task_options = parse_task_options(request->options);
    if (!task_options) return response_of(task_options.error(), "OCI runtime create failed: ");
    auto task = std::make_unique<Task>(*id);
    task->bundle = request->bundle;
    TaskProcess& init = task->init;
    init.stdin_path = request->stdin_path;
    init.stdout_path = request->stdout_path;
    init.stderr_path = request->stderr_path;
    init.terminal = request->terminal;
    auto stdio = open_process_stdio(init.stdin_path, init.stdout_path, init.stderr_path, init.terminal);
    if (!stdio) return response_of(stdio.error(), "OCI runtime create failed: ");
    init.stdio = std::move(*stdio);
    if (!request->rootfs.empty()) {
        if (auto mounted = mount_rootfs(task->bundle, request->rootfs); !mounted)
            return response_of(mounted.error(), "failed to mount rootfs component: ");
        task->rootfs_mounted = true;
    }
    auto undo_rootfs = [&] {
        if (task->rootfs_mounted) (void)unmount_rootfs(task->bundle);
    };
    CreateOptions options;
    options.bundle = task->bundle;
    options.no_pivot = task_options->no_pivot;
    Result<container::HostedInit> host = fail_msg("not created");
    {
        StdioSwap swap(init.stdio.child);
        host = container::create_hosted(runtime_, *id, options);
    }
    for (auto& fd : init.stdio.child) fd.reset();
    if (!host) {
        undo_rootfs();
        return response_of(host.error(), "OCI runtime create failed: ");
    }
    task->host = std::make_unique<container::HostedInit>(std::move(*host));
    init.pid = task->host->pid;
    Task* self = task.get();
    task->wait_block = loop_.reserve(64, [this, self](std::span<const std::uint64_t> keys) { on_init_exit(*self, keys); });
    auto wait = monitor::InitWait::open(loop_.epoll(), task->wait_block, task->host->pidfd.get(), std::move(task->host->wait));
    // The task's stdio was opened for the terminal the request names: a config.json that says otherwise would
    // leave the container's output nowhere.
    const bool has_terminal = static_cast<bool>(task->host->console);
    Result<ProcessRelays> relays = !wait ? Result<ProcessRelays>(fail(wait.error()))
                                   : has_terminal != init.terminal
                                       ? Result<ProcessRelays>(fail_msg(std::string("the task's terminal is ") +
                                                                        (init.terminal ? "true" : "false") +
                                                                        " but config.json's process.terminal is not"))
                                       : start_relays(loop_, init.stdio, task->host->console.get());
    if (!relays) {
        loop_.release(task->wait_block);
        (void)kill_container(runtime_, *id, SIGKILL, true);
        siginfo_t info{};
        ::waitid(P_PIDFD, static_cast<id_t>(task->host->pidfd.get()), &info, WEXITED);
        (void)delete_container(runtime_, *id, true);
        undo_rootfs();
        return response_of(relays.error(), "OCI runtime create failed: ");
    }
    task->wait = std::move(*wait);
    init.relays = std::move(*relays);
    init.console = std::move(task->host->console);
    watch_memory_events(*task);
    ttrpc::TaskCreate event;
    event.container_id = request->id;
    event.bundle = request->bundle;
    event.rootfs = request->rootfs;
    event.io = ttrpc::TaskIO{init.stdin_path, init.stdout_path, init.stderr_path, init.terminal};
    event.pid = static_cast<std::uint32_t>(init.pid);
    tasks_.emplace(request->id, std::move(task));
    publisher_.publish(ttrpc::event_of(event));
    return ok_response(ttrpc::encode(ttrpc::PidResponse{event.pid}));
}

void TaskService::watch_memory_events(Task& task) {
    if (!task.host->plan.cgroup) return;
    const std::string where = task.host->plan.cgroup->where();
    auto dir = open_fd(where, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (!dir) return;
    auto count = cgroup::read_oom_count(dir->get(), where);
    if (!count || !*count) return;  // no memory controller: no OOM to report
    task.oom_kills = **count;
    UniqueFd inotify(::inotify_init1(IN_CLOEXEC | IN_NONBLOCK));
    if (!inotify || ::inotify_add_watch(inotify.get(), (where + "/memory.events").c_str(), IN_MODIFY) < 0) return;
    Task* self = &task;
    auto key = loop_.watch(inotify.get(), EPOLLIN, [this, self](std::uint32_t) { on_memory_events(*self); });
    if (!key) return;
    task.cgroup_dir = std::move(*dir);
    task.inotify = std::move(inotify);
    task.inotify_key = *key;
}

void TaskService::on_memory_events(Task& task) {
    char events[4096];
    while (::read(task.inotify.get(), events, sizeof events) > 0) {
    }
    auto count = cgroup::read_oom_count(task.cgroup_dir.get(), task.host->plan.cgroup->where());
    if (!count || !*count || **count <= task.oom_kills) return;
    task.oom_kills = **count;
    publisher_.publish(ttrpc::event_of(ttrpc::TaskOOM{task.id.str()}));
}

Response TaskService::start(std::string_view payload) {
    auto call = open_call(payload, ttrpc::decode_id_request);
    if (!call) return call.error();
    auto& [request, task, process] = *call;
    TaskProcess& p = *process;
    if (p.status != ttrpc::TaskStatus::created) return error_response(Code::failed_precondition, "process " + request.id + " is not created");
    if (request.exec_id.empty()) {
        auto started = start_container(runtime_, task->id);
        if (!started) return response_of(started.error(), "OCI runtime start failed: ");
        p.status = ttrpc::TaskStatus::running;
        publisher_.publish(ttrpc::event_of(ttrpc::TaskStart{request.id, static_cast<std::uint32_t>(p.pid)}));
        return ok_response(ttrpc::encode(ttrpc::PidResponse{static_cast<std::uint32_t>(p.pid)}));
    }
    auto execed = start_exec(*task, p);
    if (!execed) return response_of(execed.error(), "OCI runtime exec failed: ");
    publisher_.publish(ttrpc::event_of(ttrpc::TaskExecStarted{request.id, request.exec_id, static_cast<std::uint32_t>(p.pid)}));
    return ok_response(ttrpc::encode(ttrpc::PidResponse{static_cast<std::uint32_t>(p.pid)}));
}

Result<void> TaskService::start_exec(Task& task, TaskProcess& p) {
    Result<container::HostedExec> spawned = fail_msg("not started");
    {
        StdioSwap swap(p.stdio.child);
        spawned = container::exec_hosted(runtime_, task.id, std::move(*p.spec));
    }
    p.spec.reset();
    for (auto& fd : p.stdio.child) fd.reset();
    if (!spawned) {
        p.status = ttrpc::TaskStatus::stopped;
        return std::unexpected(spawned.error());
    }
    p.pid = spawned->pid;
    p.pidfd = std::move(spawned->pidfd);
    p.console = std::move(spawned->console);
    p.status = ttrpc::TaskStatus::running;
    p.relays = TRY(start_relays(loop_, p.stdio, p.console.get()));
    Task* self = &task;
    std::string exec_id = p.exec_id;
    p.pidfd_key = TRY(loop_.watch(p.pidfd.get(), EPOLLIN, [this, self, exec_id](std::uint32_t) { on_exec_exit(*self, exec_id); }));
    return {};
}

Response TaskService::exec(std::string_view payload) {
    auto call = open_call(payload, ttrpc::decode_exec_process_request, Lookup::task);
    if (!call) return call.error();
    auto& [request, task, unused] = *call;
    if (request.exec_id.empty()) return error_response(Code::invalid_argument, "exec: an exec id is required");
    if (task->execs.contains(request.exec_id))
        return error_response(Code::already_exists, "id " + request.exec_id + ": process already exists");
    if (task->init.status == ttrpc::TaskStatus::stopped) return error_response(Code::failed_precondition, "container " + request.id + " is stopped");
    if (!request.spec) return error_response(Code::invalid_argument, "exec: the process spec is missing");
    std::vector<std::string> unsupported;
    auto process = spec::parse_process_config(request.spec->value, unsupported);
    if (!process) return error_response(Code::invalid_argument, "exec: process: " + process.error().message());
    if (!unsupported.empty()) return error_response(Code::invalid_argument, "exec: process: " + unsupported.front() + " is not supported by husk");
    process->terminal = request.terminal;
    TaskProcess p;
    p.exec_id = request.exec_id;
    p.stdin_path = request.stdin_path;
    p.stdout_path = request.stdout_path;
    p.stderr_path = request.stderr_path;
    p.terminal = request.terminal;
    auto stdio = open_process_stdio(p.stdin_path, p.stdout_path, p.stderr_path, p.terminal);
    if (!stdio) return response_of(stdio.error(), "OCI runtime exec failed: ");
    p.stdio = std::move(*stdio);
    p.spec = std::move(*process);
    task->execs.emplace(request.exec_id, std::move(p));
    publisher_.publish(ttrpc::event_of(ttrpc::TaskExecAdded{request.id, request.exec_id}));
    return ok_response({});
}

void TaskService::wait(std::string_view payload, const Respond& respond) {
    auto request = ttrpc::decode_id_request(payload);
    if (!request) return respond(error_response(Code::invalid_argument, request.error().message()));
    auto task = find(request->id);
    if (!task) return respond(response_of(task.error(), ""));
    auto process = find_process(**task, request->exec_id);
    if (!process) return respond(response_of(process.error(), ""));
    TaskProcess& p = **process;
    if (p.status == ttrpc::TaskStatus::stopped) return respond(ok_response(ttrpc::encode(ttrpc::WaitResponse{p.exit_status, p.exited_at})));
    p.waiters.push_back(respond);
}

void process_ended(TaskProcess& p, std::uint32_t exit_status) {
    p.status = ttrpc::TaskStatus::stopped;
    p.exit_status = exit_status;
    p.exited_at = ttrpc::timestamp_now();
    // stdin has nobody to read it now; the output relay drains to its end by itself.
    if (p.relays.stdin_relay) p.relays.stdin_relay.reset();
    auto waiters = std::move(p.waiters);
    for (auto& respond : waiters) respond(ok_response(ttrpc::encode(ttrpc::WaitResponse{p.exit_status, p.exited_at})));
}

void TaskService::on_exec_exit(Task& task, const std::string& exec_id) {
    auto found = task.execs.find(exec_id);
    if (found == task.execs.end()) return;
    TaskProcess& p = found->second;
    siginfo_t info{};
    if (::waitid(P_PIDFD, static_cast<id_t>(p.pidfd.get()), &info, WEXITED | WNOHANG) != 0 || info.si_pid == 0) return;
    loop_.unwatch(p.pidfd_key, p.pidfd.get());
    p.pidfd_key = 0;
    std::uint32_t status = info.si_code == CLD_EXITED ? static_cast<std::uint32_t>(info.si_status) : 128u + static_cast<std::uint32_t>(info.si_status);
    process_ended(p, status);
    publisher_.publish(ttrpc::event_of(ttrpc::TaskExit{task.id.str(), exec_id, static_cast<std::uint32_t>(p.pid), p.exit_status, p.exited_at}));
}

void TaskService::on_init_exit(Task& task, std::span<const std::uint64_t> keys) {
    // Execs that ended in the same wakeup are reported first: containerd expects the init's exit last.
    auto status = task.wait->on_ready(keys);
    if (status && !*status) return;
    for (auto& [exec_id, p] : task.execs)
        if (p.status == ttrpc::TaskStatus::running) on_exec_exit(task, exec_id);
    monitor::ExitStatus exit = status ? **status : monitor::ExitStatus{};
    // Without a pid namespace of its own the container's other processes outlive init: they go with it, as
    // runc's shim kills them (with one, the kernel already has). Exec processes among them report their exit.
    if (task.host->plan.cgroup) (void)cgroup::kill_all(*task.host->plan.cgroup, SIGKILL);
    // An OOM kill that ended it is reported before the exit, as containerd's CRI plugin takes the reason
    // OOMKilled from it (the inotify event may still be queued behind init's exit in this wakeup).
    if (task.inotify) on_memory_events(task);
    container::HostedExit recorded = container::record_hosted_exit(*task.host, exit);
    loop_.release(task.wait_block);
    task.wait_block = 0;
    process_ended(task.init, static_cast<std::uint32_t>(recorded.exit_code));
    publisher_.publish(ttrpc::event_of(ttrpc::TaskExit{task.id.str(), task.id.str(), static_cast<std::uint32_t>(task.init.pid),
                                                        task.init.exit_status, task.init.exited_at}));
}

Response TaskService::remove(std::string_view payload) {
    auto call = open_call(payload, ttrpc::decode_id_request);
    if (!call) return call.error();
    auto& [request, task, process] = *call;
    Task& t = *task;
    if (!request.exec_id.empty()) {
        TaskProcess& p = *process;
        if (p.status == ttrpc::TaskStatus::running) return error_response(Code::failed_precondition, "cannot delete a running process");
        ttrpc::DeleteResponse response{static_cast<std::uint32_t>(p.pid), p.exit_status, p.exited_at};
        t.execs.erase(request.exec_id);
        return ok_response(ttrpc::encode(response));
    }
    if (t.init.status == ttrpc::TaskStatus::running || t.init.status == ttrpc::TaskStatus::paused)
        return error_response(Code::failed_precondition, "cannot delete a running task");
    for (auto& [exec_id, p] : t.execs)
        if (p.pidfd_key) loop_.unwatch(p.pidfd_key, p.pidfd.get());
    if (t.init.status == ttrpc::TaskStatus::created) {
        // Deleted before start: init waits on its exec FIFO; delete --force kills it, and its exit is reaped here.
        (void)kill_container(runtime_, t.id, SIGKILL, true);
        if (t.wait_block) {
            siginfo_t info{};
            ::waitid(P_PIDFD, static_cast<id_t>(t.host->pidfd.get()), &info, WEXITED);
            loop_.release(t.wait_block);
            t.wait_block = 0;
            t.wait.reset();
            process_ended(t.init, 128 + SIGKILL);
        }
    }
    auto deleted = delete_container(runtime_, t.id, true);
    // An exec process not reaped yet (its exit not seen before this Delete) is this process's child: delete
    // killed it with the cgroup, and it is reaped here rather than left a zombie for the shim's life.
    for (auto& [exec_id, p] : t.execs) {
        if (p.status != ttrpc::TaskStatus::running || !p.pidfd) continue;
        siginfo_t info{};
        (void)sys::pidfd_send_signal(p.pidfd.get(), SIGKILL);
        ::waitid(P_PIDFD, static_cast<id_t>(p.pidfd.get()), &info, WEXITED);
    }
    if (t.inotify_key) loop_.unwatch(t.inotify_key, t.inotify.get());
    if (t.rootfs_mounted) (void)unmount_rootfs(t.bundle);
    ttrpc::DeleteResponse response{static_cast<std::uint32_t>(t.init.pid), t.init.exit_status, t.init.exited_at};
    publisher_.publish(ttrpc::event_of(ttrpc::TaskDelete{request.id, response.pid, response.exit_status, response.exited_at, request.id}));
    tasks_.erase(request.id);
    if (!deleted) return response_of(deleted.error(), "delete: ");
    return ok_response(ttrpc::encode(response));
}

}  // namespace husk::shim
