// containerd.task.v2.Task's messages (containerd 1.6, runtime/v2/task/shim.proto): requests decoded, responses
// encoded, field numbers as the .proto says. Decoders skip unknown fields and name the message and field of a
// wrong wire type ("CreateTaskRequest.terminal: expected varint"). google.protobuf.Empty is the empty string.
// The events the shim publishes and the cgroup metrics its Stats returns are in the headers included below.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "husk/error.hpp"
#include "ttrpc/events.hpp"
#include "ttrpc/metrics.hpp"
#include "ttrpc/types.hpp"

namespace husk::ttrpc {

// containerd.v1.types.Status (api/types/task/task.proto).
enum class TaskStatus : std::uint32_t { unknown = 0, created = 1, running = 2, stopped = 3, paused = 4, pausing = 5 };

// Requests. The .proto's stdin, stdout and stderr are *_path here.
struct CreateTaskRequest {
    std::string id, bundle;
    std::vector<Mount> rootfs;
    bool terminal = false;
    std::string stdin_path, stdout_path, stderr_path, checkpoint, parent_checkpoint;
    std::optional<Any> options;
};
// StateRequest, StartRequest, DeleteRequest, WaitRequest (id=1, exec_id=2) and PidsRequest, PauseRequest,
// ResumeRequest, StatsRequest, ConnectRequest (id=1 only: exec_id stays empty).
struct IdRequest {
    std::string id, exec_id;
};
struct ExecProcessRequest {
    std::string id, exec_id;
    bool terminal = false;
    std::string stdin_path, stdout_path, stderr_path;
    std::optional<Any> spec;
};
struct ResizePtyRequest {
    std::string id, exec_id;
    std::uint32_t width = 0, height = 0;
};
struct KillRequest {
    std::string id, exec_id;
    std::uint32_t signal = 0;
    bool all = false;
};
struct CloseIORequest {
    std::string id, exec_id;
    bool stdin_close = false;
};
struct CheckpointTaskRequest {
    std::string id, path;
    std::optional<Any> options;
};
struct UpdateTaskRequest {
    std::string id;
    std::optional<Any> resources;
    std::vector<std::pair<std::string, std::string>> annotations;  // map<string, string>, in wire order
};
struct ShutdownRequest {
    std::string id;
    bool now = false;
};

Result<CreateTaskRequest> decode_create_task_request(std::string_view data);
Result<IdRequest> decode_id_request(std::string_view data);
Result<ExecProcessRequest> decode_exec_process_request(std::string_view data);
Result<ResizePtyRequest> decode_resize_pty_request(std::string_view data);
Result<KillRequest> decode_kill_request(std::string_view data);
Result<CloseIORequest> decode_close_io_request(std::string_view data);
Result<CheckpointTaskRequest> decode_checkpoint_task_request(std::string_view data);
Result<UpdateTaskRequest> decode_update_task_request(std::string_view data);
Result<ShutdownRequest> decode_shutdown_request(std::string_view data);

// Responses. exited_at is non-nullable in containerd's protos, so it is always written.
struct PidResponse {  // CreateTaskResponse, StartResponse
    std::uint32_t pid = 0;
};
struct DeleteResponse {
    std::uint32_t pid = 0, exit_status = 0;
    Timestamp exited_at;
};
struct StateResponse {
    std::string id, bundle;
    std::uint32_t pid = 0;
    TaskStatus status = TaskStatus::unknown;
    std::string stdin_path, stdout_path, stderr_path;
    bool terminal = false;
    std::uint32_t exit_status = 0;
    Timestamp exited_at;
    std::string exec_id;
};
struct ProcessInfo {  // containerd.v1.types.ProcessInfo; its info Any is never written
    std::uint32_t pid = 0;
};
struct PidsResponse {
    std::vector<ProcessInfo> processes;
};
struct WaitResponse {
    std::uint32_t exit_status = 0;
    Timestamp exited_at;
};
struct StatsResponse {
    std::optional<Any> stats;
};
struct ConnectResponse {
    std::uint32_t shim_pid = 0, task_pid = 0;
    std::string version;
};

std::string encode(const PidResponse& response);
std::string encode(const DeleteResponse& response);
std::string encode(const StateResponse& response);
std::string encode(const PidsResponse& response);
std::string encode(const WaitResponse& response);
std::string encode(const StatsResponse& response);
std::string encode(const ConnectResponse& response);

}  // namespace husk::ttrpc
