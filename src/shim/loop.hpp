// The serving shim's one event loop: every fd it watches (containerd's connections, each container's init and
// limits, exec processes, stdio relays, OOM watches) in one epoll, each with a handler. Single-threaded: a
// handler runs to its end before the next; one may remove others (or itself) on the way.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <span>

#include "husk/error.hpp"
#include "husk/unique_fd.hpp"

namespace husk::shim {

class Loop {
public:
    using Handler = std::function<void(std::uint32_t events)>;
    using BlockHandler = std::function<void(std::span<const std::uint64_t> keys)>;

    static Result<Loop> open();
    int epoll() const { return epoll_.get(); }

    // fd with EPOLLIN/EPOLLOUT...; the key removes it again.
    Result<std::uint64_t> watch(int fd, std::uint32_t events, Handler handler);
    void modify(std::uint64_t key, int fd, std::uint32_t events);
    void unwatch(std::uint64_t key, int fd);
    // A block of `count` keys whose fds a component adds itself (monitor::InitWait); all its keys ready in one
    // wakeup reach `handler` together.
    std::uint64_t reserve(std::uint64_t count, BlockHandler handler);
    void release(std::uint64_t first);

    // One epoll_wait (-1: no timeout) and its handlers.
    Result<void> run_once(int timeout_ms);

private:
    explicit Loop(UniqueFd epoll) : epoll_(std::move(epoll)) {}
    UniqueFd epoll_;
    std::uint64_t next_key_ = 1;
    std::map<std::uint64_t, Handler> handlers_;
    struct Block {
        std::uint64_t count;
        BlockHandler handler;
    };
    std::map<std::uint64_t, Block> blocks_;  // by first key
};

}  // namespace husk::shim
