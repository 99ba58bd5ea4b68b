// Task events to containerd: each a ttrpc call of containerd.services.events.ttrpc.v1.Events/Forward on
// containerd's ttrpc socket (TTRPC_ADDRESS, as containerd 1.6 starts its shims), in the order they happened.
// An event containerd could not take (restarting) is kept and sent again before the next one, and by retry().
#pragma once

#include <cstdint>
#include <deque>
#include <string>

#include "husk/error.hpp"
#include "husk/unique_fd.hpp"
#include "ttrpc/task_api.hpp"

namespace husk::shim {

class Publisher {
public:
    Publisher(std::string address, std::string ns) : address_(std::move(address)), ns_(std::move(ns)) {}
    void publish(const ttrpc::Event& event);
    // Sends what is queued; false while something is still waiting.
    bool retry();
    bool pending() const { return !queue_.empty(); }

private:
    Result<void> forward(const std::string& request);
    Result<void> connect();
    std::string address_, ns_;
    UniqueFd fd_;
    std::uint32_t stream_ = 1;
    std::deque<std::string> queue_;  // encoded ForwardRequests, oldest first
};

}  // namespace husk::shim
