// The Task service's calls on a task that exists: state, signals, pids, freezing, the pty, stdin, resources,
// metrics, and the shim's own Connect and Shutdown.
#include <sys/ioctl.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "base/fs.hpp"
#include "base/sys.hpp"
#include "shim/metrics.hpp"
#include "shim/service.hpp"
#include "shim/service_internal.hpp"
#include "spec/parse.hpp"

namespace husk::shim {

using ttrpc::Code;
using ttrpc::Response;
using ttrpc::TaskStatus;

Response TaskService::state(std::string_view payload) {
    auto call = open_call(payload, ttrpc::decode_id_request);
    if (!call) return call.error();
    auto& [request, task, process] = *call;
    const TaskProcess& p = *process;
    ttrpc::StateResponse response;
    response.id = request.exec_id.empty() ? request.id : request.exec_id;
    response.bundle = task->bundle;
    response.pid = static_cast<std::uint32_t>(p.pid);
    response.status = p.status;
    response.stdin_path = p.stdin_path;
    response.stdout_path = p.stdout_path;
    response.stderr_path = p.stderr_path;
    response.terminal = p.terminal;
    response.exit_status = p.exit_status;
    response.exited_at = p.exited_at;
    response.exec_id = request.exec_id;
    return ok_response(ttrpc::encode(response));
}

Response TaskService::kill(std::string_view payload) {
    auto call = open_call(payload, ttrpc::decode_kill_request);
    if (!call) return call.error();
    auto& [request, task, process] = *call;
    TaskProcess& p = *process;
    const int signal = static_cast<int>(request.signal);
    if (signal <= 0 || signal > 64) return error_response(Code::invalid_argument, "signal " + std::to_string(signal) + ": not a signal");
    if (request.exec_id.empty()) {
        if (p.status == TaskStatus::stopped && !request.all) return error_response(Code::not_found, "process already finished");
        auto killed = kill_container(runtime_, task->id, signal, request.all);
        if (!killed) return response_of(killed.error(), "");
        return ok_response({});
    }
    if (p.status != TaskStatus::running) return error_response(Code::not_found, "process already finished");
    if (sys::pidfd_send_signal(p.pidfd.get(), signal) != 0) return error_response(Code::unknown, "kill exec " + request.exec_id + ": " + std::string(std::strerror(errno)));
    return ok_response({});
}

Response TaskService::pids(std::string_view payload) {
    auto call = open_call(payload, ttrpc::decode_id_request);
    if (!call) return call.error();
    auto& [request, task, process] = *call;
    auto pids = container_pids(runtime_, task->id);
    if (!pids) return response_of(pids.error(), "");
    ttrpc::PidsResponse response;
    for (pid_t pid : *pids) response.processes.push_back(ttrpc::ProcessInfo{static_cast<std::uint32_t>(pid)});
    return ok_response(ttrpc::encode(response));
}

Response TaskService::pause(std::string_view payload, bool resume) {
    auto call = open_call(payload, ttrpc::decode_id_request);
    if (!call) return call.error();
    auto& [request, task, process] = *call;
    TaskProcess& init = task->init;
    auto done = resume ? resume_container(runtime_, task->id) : pause_container(runtime_, task->id);
    if (!done) return response_of(done.error(), "");
    if (init.status != TaskStatus::stopped) init.status = resume ? TaskStatus::running : TaskStatus::paused;
    if (resume) publisher_.publish(ttrpc::event_of(ttrpc::TaskResumed{request.id}));
    else publisher_.publish(ttrpc::event_of(ttrpc::TaskPaused{request.id}));
    return ok_response({});
}

Response TaskService::resize_pty(std::string_view payload) {
    auto call = open_call(payload, ttrpc::decode_resize_pty_request);
    if (!call) return call.error();
    auto& [request, task, process] = *call;
    TaskProcess& p = *process;
    if (!p.console) return error_response(Code::failed_precondition, "the process has no terminal");
    winsize size{};
    size.ws_col = static_cast<unsigned short>(request.width);
    size.ws_row = static_cast<unsigned short>(request.height);
    if (::ioctl(p.console.get(), TIOCSWINSZ, &size) != 0) return error_response(Code::unknown, std::string("resize pty: ") + std::strerror(errno));
    return ok_response({});
}

Response TaskService::close_io(std::string_view payload) {
    auto call = open_call(payload, ttrpc::decode_close_io_request);
    if (!call) return call.error();
    auto& [request, task, process] = *call;
    TaskProcess& p = *process;
    if (request.stdin_close) {
        if (p.relays.stdin_relay) p.relays.stdin_relay->close_source();
        p.stdio.stdin_source.reset();  // not started yet: the process gets no stdin data
    }
    return ok_response({});
}

Response TaskService::update(std::string_view payload) {
    auto call = open_call(payload, ttrpc::decode_update_task_request);
    if (!call) return call.error();
    auto& [request, task, process] = *call;
    if (!request.resources) return ok_response({});
    auto resources = spec::parse_resources_config(request.resources->value);
    if (!resources) return error_response(Code::invalid_argument, "update: resources: " + resources.error().message());
    auto updated = update_container(runtime_, task->id, *resources);
    if (!updated) return response_of(updated.error(), "");
    return ok_response({});
}

Response TaskService::stats(std::string_view payload) {
    auto call = open_call(payload, ttrpc::decode_id_request);
    if (!call) return call.error();
    auto& [request, task, process] = *call;
    const auto& cgroup = task->host->plan.cgroup;
    if (!cgroup) return error_response(Code::failed_precondition, "task " + request.id + " has no cgroup");
    auto dir = open_fd(cgroup->where(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (!dir) return response_of(dir.error(), "stats: ");
    auto metrics = read_metrics(dir->get(), cgroup->where());
    if (!metrics) return response_of(metrics.error(), "stats: ");
    ttrpc::StatsResponse response;
    response.stats = ttrpc::encode_metrics(*metrics);
    return ok_response(ttrpc::encode(response));
}

Response TaskService::connect(std::string_view payload) {
    auto request = ttrpc::decode_id_request(payload);
    if (!request) return error_response(Code::invalid_argument, request.error().message());
    ttrpc::ConnectResponse response;
    response.shim_pid = static_cast<std::uint32_t>(::getpid());
    if (auto task = find(request->id)) response.task_pid = static_cast<std::uint32_t>((*task)->init.pid);
    return ok_response(ttrpc::encode(response));
}

Response TaskService::shutdown(std::string_view payload) {
    auto request = ttrpc::decode_shutdown_request(payload);
    if (!request) return error_response(Code::invalid_argument, request.error().message());
    // The shim ends once it serves no task (a pod's shim stays for the pod's other tasks).
    if (tasks_.empty() || request->now) shutdown_ = true;
    return ok_response({});
}

}  // namespace husk::shim
