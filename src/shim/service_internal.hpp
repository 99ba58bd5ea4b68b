// What the two halves of the Task service share (service.cpp, service_calls.cpp).
#pragma once

#include <string>
#include <string_view>

#include "husk/error.hpp"
#include "shim/service.hpp"
#include "shim/task.hpp"
#include "ttrpc/frame.hpp"

namespace husk::shim {

ttrpc::Response error_response(ttrpc::Code code, std::string message);
ttrpc::Response ok_response(std::string payload);
// not_found for ErrorKind::not_found (containerd's errdefs then says "not found"), else unknown.
ttrpc::Response response_of(const Error& error, std::string_view prefix);
Result<TaskProcess*> find_process(Task& task, const std::string& exec_id);
// Stopped with this status now; the Wait calls waiting for it are answered.
void process_ended(TaskProcess& process, std::uint32_t exit_status);

template <typename Request>
std::expected<TaskService::Call<Request>, ttrpc::Response> TaskService::open_call(
    std::string_view payload, Result<Request> (*decode)(std::string_view), Lookup lookup) {
    auto request = decode(payload);
    if (!request) return std::unexpected(error_response(ttrpc::Code::invalid_argument, request.error().message()));
    auto task = find(request->id);
    if (!task) return std::unexpected(response_of(task.error(), ""));
    Call<Request> call{std::move(*request), *task, nullptr};
    if constexpr (requires { call.request.exec_id; }) {
        if (lookup == Lookup::task) return call;
        auto process = find_process(**task, call.request.exec_id);
        if (!process) return std::unexpected(response_of(process.error(), ""));
        call.process = *process;
    }
    return call;
}

}  // namespace husk::shim
