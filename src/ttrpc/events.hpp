// The task events a shim publishes (containerd 1.6, api/events/task.proto), each as the Any containerd decodes
// and the topic it goes under, and the Forward request that carries one to containerd
// (containerd.services.events.ttrpc.v1.Events, api/services/ttrpc/events/v1/events.proto).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ttrpc/types.hpp"

namespace husk::ttrpc {

struct TaskIO {  // the .proto's stdin, stdout, stderr
    std::string stdin_path, stdout_path, stderr_path;
    bool terminal = false;
};
struct TaskCreate {
    std::string container_id, bundle;
    std::vector<Mount> rootfs;
    TaskIO io;
    std::string checkpoint;
    std::uint32_t pid = 0;
};
struct TaskStart {
    std::string container_id;
    std::uint32_t pid = 0;
};
struct TaskDelete {
    std::string container_id;
    std::uint32_t pid = 0, exit_status = 0;
    Timestamp exited_at;
    std::string id;
};
struct TaskExit {
    std::string container_id, id;
    std::uint32_t pid = 0, exit_status = 0;
    Timestamp exited_at;
};
struct TaskOOM {
    std::string container_id;
};
struct TaskExecAdded {
    std::string container_id, exec_id;
};
struct TaskExecStarted {
    std::string container_id, exec_id;
    std::uint32_t pid = 0;
};
struct TaskPaused {
    std::string container_id;
};
struct TaskResumed {
    std::string container_id;
};

// An event as published: its topic ("/tasks/exit", containerd's runtime/events.go) and the event as an Any whose
// type URL is the message's full name ("containerd.events.TaskExit"), as containerd's typeurl names it.
struct Event {
    std::string topic;
    Any event;
};
Event event_of(const TaskCreate& event);
Event event_of(const TaskStart& event);
Event event_of(const TaskDelete& event);
Event event_of(const TaskExit& event);
Event event_of(const TaskOOM& event);
Event event_of(const TaskExecAdded& event);
Event event_of(const TaskExecStarted& event);
Event event_of(const TaskPaused& event);
Event event_of(const TaskResumed& event);

// ForwardRequest{envelope=1 Envelope{timestamp=1, namespace=2, topic=3, event=4}}.
std::string encode_forward_request(const Timestamp& at, std::string_view ns, const Event& event);

}  // namespace husk::ttrpc
