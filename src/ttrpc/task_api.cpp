#include "ttrpc/task_api.hpp"

#include "ttrpc/fields.hpp"
#include "ttrpc/protobuf.hpp"

namespace husk::ttrpc {

Result<CreateTaskRequest> decode_create_task_request(std::string_view data) {
    using R = CreateTaskRequest;
    return decode_fields<R>(data, "CreateTaskRequest",
                            {{1, "id", &R::id},
                             {2, "bundle", &R::bundle},
                             {3, "rootfs", &R::rootfs},
                             {4, "terminal", &R::terminal},
                             {5, "stdin", &R::stdin_path},
                             {6, "stdout", &R::stdout_path},
                             {7, "stderr", &R::stderr_path},
                             {8, "checkpoint", &R::checkpoint},
                             {9, "parent_checkpoint", &R::parent_checkpoint},
                             {10, "options", &R::options}});
}

Result<IdRequest> decode_id_request(std::string_view data) {
    return decode_fields<IdRequest>(data, "IdRequest", {{1, "id", &IdRequest::id}, {2, "exec_id", &IdRequest::exec_id}});
}

Result<ExecProcessRequest> decode_exec_process_request(std::string_view data) {
    using R = ExecProcessRequest;
    return decode_fields<R>(data, "ExecProcessRequest",
                            {{1, "id", &R::id},
                             {2, "exec_id", &R::exec_id},
                             {3, "terminal", &R::terminal},
                             {4, "stdin", &R::stdin_path},
                             {5, "stdout", &R::stdout_path},
                             {6, "stderr", &R::stderr_path},
                             {7, "spec", &R::spec}});
}

Result<ResizePtyRequest> decode_resize_pty_request(std::string_view data) {
    using R = ResizePtyRequest;
    return decode_fields<R>(data, "ResizePtyRequest",
                            {{1, "id", &R::id}, {2, "exec_id", &R::exec_id}, {3, "width", &R::width}, {4, "height", &R::height}});
}

Result<KillRequest> decode_kill_request(std::string_view data) {
    using R = KillRequest;
    return decode_fields<R>(data, "KillRequest",
                            {{1, "id", &R::id}, {2, "exec_id", &R::exec_id}, {3, "signal", &R::signal}, {4, "all", &R::all}});
}

Result<CloseIORequest> decode_close_io_request(std::string_view data) {
    using R = CloseIORequest;
    return decode_fields<R>(data, "CloseIORequest", {{1, "id", &R::id}, {2, "exec_id", &R::exec_id}, {3, "stdin", &R::stdin_close}});
}

Result<CheckpointTaskRequest> decode_checkpoint_task_request(std::string_view data) {
    using R = CheckpointTaskRequest;
    return decode_fields<R>(data, "CheckpointTaskRequest", {{1, "id", &R::id}, {2, "path", &R::path}, {3, "options", &R::options}});
}

Result<UpdateTaskRequest> decode_update_task_request(std::string_view data) {
    using R = UpdateTaskRequest;
    return decode_fields<R>(data, "UpdateTaskRequest",
                            {{1, "id", &R::id}, {2, "resources", &R::resources}, {3, "annotations", &R::annotations}});
}

Result<ShutdownRequest> decode_shutdown_request(std::string_view data) {
    return decode_fields<ShutdownRequest>(data, "ShutdownRequest",
                                          {{1, "id", &ShutdownRequest::id}, {2, "now", &ShutdownRequest::now}});
}

std::string encode(const PidResponse& response) {
    ProtoWriter out;
    out.uint(1, response.pid);
    return out.take();
}

std::string encode(const DeleteResponse& response) {
    ProtoWriter out;
    out.uint(1, response.pid);
    out.uint(2, response.exit_status);
    out.message(3, encode(response.exited_at));
    return out.take();
}

std::string encode(const StateResponse& response) {
    ProtoWriter out;
    out.string(1, response.id);
    out.string(2, response.bundle);
    out.uint(3, response.pid);
    out.uint(4, static_cast<std::uint32_t>(response.status));
    out.string(5, response.stdin_path);
    out.string(6, response.stdout_path);
    out.string(7, response.stderr_path);
    out.boolean(8, response.terminal);
    out.uint(9, response.exit_status);
    out.message(10, encode(response.exited_at));
    out.string(11, response.exec_id);
    return out.take();
}

std::string encode(const PidsResponse& response) {
    ProtoWriter out;
    for (const auto& process : response.processes) {
        ProtoWriter info;
        info.uint(1, process.pid);
        out.message(1, info.data());
    }
    return out.take();
}

std::string encode(const WaitResponse& response) {
    ProtoWriter out;
    out.uint(1, response.exit_status);
    out.message(2, encode(response.exited_at));
    return out.take();
}

std::string encode(const StatsResponse& response) {
    ProtoWriter out;
    if (response.stats) out.message(1, encode(*response.stats));
    return out.take();
}

std::string encode(const ConnectResponse& response) {
    ProtoWriter out;
    out.uint(1, response.shim_pid);
    out.uint(2, response.task_pid);
    out.string(3, response.version);
    return out.take();
}

}  // namespace husk::ttrpc
