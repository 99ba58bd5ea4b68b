// containerd.task.v2.Task, served for every task of this shim's group: each container's monitor is this
// process (container/hosted.hpp), so its limits, verdict and exit are watched here, in the shim's loop.
// Statuses follow containerd's runc shim: errors carry the gRPC code containerd's errdefs maps (not found,
// failed precondition, unimplemented), and create/exec failures read "OCI runtime create failed: ...".
#pragma once

#include <expected>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>

#include "husk/container.hpp"
#include "shim/loop.hpp"
#include "shim/publisher.hpp"
#include "ttrpc/frame.hpp"

namespace husk::shim {

struct Task;
struct TaskProcess;

class TaskService {
public:
    using Respond = std::function<void(const ttrpc::Response&)>;
    TaskService(Loop& loop, Runtime runtime, Publisher& publisher, std::string ns);
    ~TaskService();
    // Answers now or later (Wait): `respond` is called once.
    void call(const ttrpc::Request& request, const Respond& respond);
    // Shutdown was asked and no task is left: the shim may exit.
    bool finished() const { return shutdown_; }
    bool empty() const { return tasks_.empty(); }
    // A call ran husk's container machinery since the last ask (Create, Start, Exec's start, Delete, Update).
    bool take_heavy_call() { return std::exchange(heavy_call_, false); }

private:
    ttrpc::Response create(std::string_view payload);
    ttrpc::Response start(std::string_view payload);
    ttrpc::Response remove(std::string_view payload);
    ttrpc::Response exec(std::string_view payload);
    ttrpc::Response state(std::string_view payload);
    ttrpc::Response kill(std::string_view payload);
    ttrpc::Response pids(std::string_view payload);
    ttrpc::Response pause(std::string_view payload, bool resume);
    ttrpc::Response resize_pty(std::string_view payload);
    ttrpc::Response close_io(std::string_view payload);
    ttrpc::Response update(std::string_view payload);
    ttrpc::Response stats(std::string_view payload);
    ttrpc::Response connect(std::string_view payload);
    ttrpc::Response shutdown(std::string_view payload);
    void wait(std::string_view payload, const Respond& respond);
    void on_init_exit(Task& task, std::span<const std::uint64_t> keys);
    void on_exec_exit(Task& task, const std::string& exec_id);
    void on_memory_events(Task& task);
    void watch_memory_events(Task& task);
    Result<void> start_exec(Task& task, TaskProcess& process);
    Result<Task*> find(const std::string& id);
    enum class Lookup { task, process };  // process: also the one the request's exec_id names
    // A call's request decoded and what it names found: its task and, when the request has an exec_id, the
    // process (the init for an empty one). Else the error response.
    template <typename Request>
    struct Call {
        Request request;
        Task* task = nullptr;
        TaskProcess* process = nullptr;
    };
    template <typename Request>
    std::expected<Call<Request>, ttrpc::Response> open_call(std::string_view payload,
                                                            Result<Request> (*decode)(std::string_view),
                                                            Lookup lookup = Lookup::process);

    Loop& loop_;
    Runtime runtime_;
    Publisher& publisher_;
    std::string ns_;
    std::map<std::string, std::unique_ptr<Task>> tasks_;
    bool shutdown_ = false;
    bool heavy_call_ = false;
};

}  // namespace husk::shim
