#include "ttrpc/events.hpp"

#include "ttrpc/protobuf.hpp"

namespace husk::ttrpc {
namespace {

Event make_event(std::string_view topic, std::string_view name, std::string value) {
    return {std::string(topic), {"containerd.events." + std::string(name), std::move(value)}};
}

// The events that carry nothing but the container's id (field 1).
std::string encode_container_id(const std::string& container_id) {
    ProtoWriter out;
    out.string(1, container_id);
    return out.take();
}

}  // namespace

Event event_of(const TaskCreate& event) {
    ProtoWriter io;
    io.string(1, event.io.stdin_path);
    io.string(2, event.io.stdout_path);
    io.string(3, event.io.stderr_path);
    io.boolean(4, event.io.terminal);
    ProtoWriter out;
    out.string(1, event.container_id);
    out.string(2, event.bundle);
    for (const auto& mount : event.rootfs) out.message(3, encode(mount));
    out.message(4, io.data());
    out.string(5, event.checkpoint);
    out.uint(6, event.pid);
    return make_event("/tasks/create", "TaskCreate", out.take());
}

Event event_of(const TaskStart& event) {
    ProtoWriter out;
    out.string(1, event.container_id);
    out.uint(2, event.pid);
    return make_event("/tasks/start", "TaskStart", out.take());
}

Event event_of(const TaskDelete& event) {
    ProtoWriter out;
    out.string(1, event.container_id);
    out.uint(2, event.pid);
    out.uint(3, event.exit_status);
    out.message(4, encode(event.exited_at));
    out.string(5, event.id);
    return make_event("/tasks/delete", "TaskDelete", out.take());
}

Event event_of(const TaskExit& event) {
    ProtoWriter out;
    out.string(1, event.container_id);
    out.string(2, event.id);
    out.uint(3, event.pid);
    out.uint(4, event.exit_status);
    out.message(5, encode(event.exited_at));
    return make_event("/tasks/exit", "TaskExit", out.take());
}

Event event_of(const TaskOOM& event) {
    return make_event("/tasks/oom", "TaskOOM", encode_container_id(event.container_id));
}

Event event_of(const TaskExecAdded& event) {
    ProtoWriter out;
    out.string(1, event.container_id);
    out.string(2, event.exec_id);
    return make_event("/tasks/exec-added", "TaskExecAdded", out.take());
}

Event event_of(const TaskExecStarted& event) {
    ProtoWriter out;
    out.string(1, event.container_id);
    out.string(2, event.exec_id);
    out.uint(3, event.pid);
    return make_event("/tasks/exec-started", "TaskExecStarted", out.take());
}

Event event_of(const TaskPaused& event) {
    return make_event("/tasks/paused", "TaskPaused", encode_container_id(event.container_id));
}

Event event_of(const TaskResumed& event) {
    return make_event("/tasks/resumed", "TaskResumed", encode_container_id(event.container_id));
}

std::string encode_forward_request(const Timestamp& at, std::string_view ns, const Event& event) {
    ProtoWriter envelope;
    envelope.message(1, encode(at));
    envelope.string(2, ns);
    envelope.string(3, event.topic);
    envelope.message(4, encode(event.event));
    ProtoWriter out;
    out.message(1, envelope.data());
    return out.take();
}

}  // namespace husk::ttrpc
