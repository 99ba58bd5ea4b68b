// The BPF maps of the network policy (cgroup/net_filter.hpp): the counters of allowed network operations, read
// for the verdict's usage.netOps, and of refused ones, for its factor `network-denied`; and with
// run.husk.net-ops-kill a ring buffer the programs write to at the first operation past the budget, which the
// monitor has in its epoll set.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "husk/error.hpp"
#include "husk/unique_fd.hpp"

namespace husk::cgroup {

// The counter map's u64 slots: operations the allow-list let through (past the budget too), and operations the
// programs refused (a destination off the allow-list, or past the budget).
inline constexpr std::uint32_t net_ops_slot = 0, net_denied_slot = 1, net_counter_slots = 2;

struct NetMaps {
    UniqueFd counter;  // BPF_MAP_TYPE_ARRAY, net_counter_slots u64s
    UniqueFd events;   // BPF_MAP_TYPE_RINGBUF; empty without run.husk.net-ops-kill
};

// `where` names the cgroup in errors.
Result<NetMaps> create_net_maps(bool with_events, const std::string& where);

// The counters now: operations let through by the allow-list, and operations refused (the factor
// `network-denied`).
Result<std::uint64_t> read_net_ops(const NetMaps& maps);
Result<std::uint64_t> read_net_denied(const NetMaps& maps);

// The consumer side of the ring buffer, mapped: marks everything produced so far as read, so that a
// level-triggered epoll stops reporting it.
class NetEvents {
public:
    static Result<NetEvents> open(int ring_fd);
    NetEvents(NetEvents&& other) noexcept;
    NetEvents& operator=(NetEvents&&) = delete;
    ~NetEvents();
    void consume() noexcept;

private:
    NetEvents(void* consumer, void* producer) : consumer_(consumer), producer_(producer) {}
    void* consumer_;
    void* producer_;
};

}  // namespace husk::cgroup
