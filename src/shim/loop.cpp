#include "shim/loop.hpp"

#include <sys/epoll.h>

#include <cerrno>
#include <vector>

namespace husk::shim {

Result<Loop> Loop::open() {
    UniqueFd epoll(::epoll_create1(EPOLL_CLOEXEC));
    if (!epoll) return fail_sys(errno, "epoll_create1");
    return Loop(std::move(epoll));
}

Result<std::uint64_t> Loop::watch(int fd, std::uint32_t events, Handler handler) {
    std::uint64_t key = next_key_++;
    epoll_event event{};
    event.events = events;
    event.data.u64 = key;
    if (::epoll_ctl(epoll_.get(), EPOLL_CTL_ADD, fd, &event) != 0) return fail_sys(errno, "epoll_ctl");
    handlers_.emplace(key, std::move(handler));
    return key;
}

void Loop::modify(std::uint64_t key, int fd, std::uint32_t events) {
    epoll_event event{};
    event.events = events;
    event.data.u64 = key;
    ::epoll_ctl(epoll_.get(), EPOLL_CTL_MOD, fd, &event);
}

void Loop::unwatch(std::uint64_t key, int fd) {
    ::epoll_ctl(epoll_.get(), EPOLL_CTL_DEL, fd, nullptr);
    handlers_.erase(key);
}

std::uint64_t Loop::reserve(std::uint64_t count, BlockHandler handler) {
    std::uint64_t first = next_key_;
    next_key_ += count;
    blocks_.emplace(first, Block{count, std::move(handler)});
    return first;
}

void Loop::release(std::uint64_t first) { blocks_.erase(first); }

Result<void> Loop::run_once(int timeout_ms) {
    epoll_event events[32];
    int n = ::epoll_wait(epoll_.get(), events, 32, timeout_ms);
    if (n < 0) return errno == EINTR ? Result<void>{} : fail_sys(errno, "epoll_wait");
    // Blocks first, each once with all its keys; then single fds. A handler found gone was removed by an
    // earlier one of this wakeup.
    std::map<std::uint64_t, std::vector<std::uint64_t>> by_block;
    for (int i = 0; i < n; ++i) {
        std::uint64_t key = events[i].data.u64;
        auto block = blocks_.upper_bound(key);
        if (block != blocks_.begin() && key - std::prev(block)->first < std::prev(block)->second.count)
            by_block[std::prev(block)->first].push_back(key);
    }
    for (auto& [first, keys] : by_block) {
        auto block = blocks_.find(first);
        if (block == blocks_.end()) continue;
        BlockHandler handler = block->second.handler;  // a copy: the handler may release its own block
        handler(keys);
    }
    for (int i = 0; i < n; ++i) {
        auto found = handlers_.find(events[i].data.u64);
        if (found == handlers_.end()) continue;
        Handler handler = found->second;
        handler(events[i].events);
    }
    return {};
}

}  // namespace husk::shim
