#include "cgroup/net_maps.hpp"

#include <linux/bpf.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

#include "cgroup/bpf_program.hpp"

namespace husk::cgroup {
namespace {

Result<UniqueFd> create_map(bpf_map_type type, std::uint32_t key_size, std::uint32_t value_size,
                            std::uint32_t entries, const char* name, const std::string& where) {
    bpf_attr create{};
    create.map_type = type;
    create.key_size = key_size;
    create.value_size = value_size;
    create.max_entries = entries;
    std::strncpy(create.map_name, name, sizeof create.map_name - 1);
    int fd = bpf(BPF_MAP_CREATE, create);
    if (fd < 0) return fail_sys(errno, std::string("create the network policy's BPF map ") + name + " for", where);
    return UniqueFd(fd);
}

std::size_t page_size() { return static_cast<std::size_t>(::sysconf(_SC_PAGESIZE)); }

}  // namespace

Result<NetMaps> create_net_maps(bool with_events, const std::string& where) {
    NetMaps maps;
    maps.counter = TRY(create_map(BPF_MAP_TYPE_ARRAY, sizeof(std::uint32_t), sizeof(std::uint64_t), net_counter_slots,
                                  "husk_net_ops", where));
    // One page: the programs write one 8-byte record, once.
    if (with_events)
        maps.events = TRY(create_map(BPF_MAP_TYPE_RINGBUF, 0, 0, static_cast<std::uint32_t>(page_size()), "husk_net_evt", where));
    return maps;
}

namespace {

Result<std::uint64_t> read_counter(const NetMaps& maps, std::uint32_t key, const char* what) {
    std::uint64_t value = 0;
    bpf_attr lookup{};
    lookup.map_fd = static_cast<std::uint32_t>(maps.counter.get());
    lookup.key = reinterpret_cast<std::uintptr_t>(&key);
    lookup.value = reinterpret_cast<std::uintptr_t>(&value);
    if (bpf(BPF_MAP_LOOKUP_ELEM, lookup) != 0) return fail_sys(errno, std::string("read the ") + what);
    return value;
}

}  // namespace

Result<std::uint64_t> read_net_ops(const NetMaps& maps) {
    return read_counter(maps, net_ops_slot, "network operation counter");
}

Result<std::uint64_t> read_net_denied(const NetMaps& maps) {
    return read_counter(maps, net_denied_slot, "counter of network operations the policy refused");
}

// A ring buffer's first page is the consumer position (writable), the next the producer position (read-only).
Result<NetEvents> NetEvents::open(int ring_fd) {
    void* consumer = ::mmap(nullptr, page_size(), PROT_READ | PROT_WRITE, MAP_SHARED, ring_fd, 0);
    if (consumer == MAP_FAILED) return fail_sys(errno, "map the network events ring buffer's consumer page");
    void* producer = ::mmap(nullptr, page_size(), PROT_READ, MAP_SHARED, ring_fd, static_cast<off_t>(page_size()));
    if (producer == MAP_FAILED) {
        int err = errno;
        ::munmap(consumer, page_size());
        return fail_sys(err, "map the network events ring buffer's producer page");
    }
    return NetEvents(consumer, producer);
}

NetEvents::NetEvents(NetEvents&& other) noexcept : consumer_(other.consumer_), producer_(other.producer_) {
    other.consumer_ = other.producer_ = nullptr;
}

NetEvents::~NetEvents() {
    if (consumer_) ::munmap(consumer_, page_size());
    if (producer_) ::munmap(producer_, page_size());
}

void NetEvents::consume() noexcept {
    auto* produced = static_cast<std::atomic<std::uint64_t>*>(producer_);
    auto* consumed = static_cast<std::atomic<std::uint64_t>*>(consumer_);
    consumed->store(produced->load(std::memory_order_acquire), std::memory_order_release);
}

}  // namespace husk::cgroup
