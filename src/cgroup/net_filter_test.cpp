#include "cgroup/net_filter.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <linux/io_uring.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <functional>
#include <vector>

#include "cgroup/test_cgroup.hpp"

using namespace husk::cgroup;
using husk::UniqueFd;

namespace {

// A destination: IPv4 or IPv6 socket address.
struct Address {
    sockaddr_storage storage{};
    socklen_t length = 0;
    const sockaddr* get() const { return reinterpret_cast<const sockaddr*>(&storage); }
    int family() const { return storage.ss_family; }
};

// 127.0.0.1 or ::1 style text, by the family it parses as.
Address address(const char* text, std::uint16_t port) {
    Address a;
    auto* in = reinterpret_cast<sockaddr_in*>(&a.storage);
    auto* in6 = reinterpret_cast<sockaddr_in6*>(&a.storage);
    if (::inet_pton(AF_INET, text, &in->sin_addr) == 1) {
        in->sin_family = AF_INET;
        in->sin_port = htons(port);
        a.length = sizeof(sockaddr_in);
    } else {
        REQUIRE(::inet_pton(AF_INET6, text, &in6->sin6_addr) == 1);
        in6->sin6_family = AF_INET6;
        in6->sin6_port = htons(port);
        a.length = sizeof(sockaddr_in6);
    }
    return a;
}
Address ipv4(const char* text, std::uint16_t port) { return address(text, port); }
Address ipv6(const char* text, std::uint16_t port) { return address(text, port); }

// A server on loopback, outside the test cgroup: TCP listening or UDP bound, on a port the kernel picks.
struct Server {
    UniqueFd fd;
    std::uint16_t port = 0;

    Server(int family, int type, const char* address) {
        fd = UniqueFd(::socket(family, type | SOCK_CLOEXEC, 0));
        REQUIRE(fd);
        Address bound = family == AF_INET ? ipv4(address, 0) : ipv6(address, 0);
        REQUIRE(::bind(fd.get(), bound.get(), bound.length) == 0);
        if (type == SOCK_STREAM) REQUIRE(::listen(fd.get(), 64) == 0);
        sockaddr_storage name{};
        socklen_t length = sizeof name;
        REQUIRE(::getsockname(fd.get(), reinterpret_cast<sockaddr*>(&name), &length) == 0);
        port = ntohs(family == AF_INET ? reinterpret_cast<sockaddr_in*>(&name)->sin_port
                                       : reinterpret_cast<sockaddr_in6*>(&name)->sin6_port);
    }
    // The next datagram (UDP), waiting for it; empty when none comes within 10 s.
    std::string receive() const {
        pollfd p{fd.get(), POLLIN, 0};
        if (::poll(&p, 1, 10000) != 1) return {};
        char buffer[64];
        ssize_t n = ::recv(fd.get(), buffer, sizeof buffer, MSG_DONTWAIT);
        return n > 0 ? std::string(buffer, static_cast<std::size_t>(n)) : std::string();
    }
};

// 0 or errno.
int result(int rc) { return rc < 0 ? errno : 0; }

int tcp_connect(const Address& to) {
    UniqueFd s(::socket(to.family(), SOCK_STREAM | SOCK_CLOEXEC, 0));
    if (!s) return errno;
    return result(::connect(s.get(), to.get(), to.length));
}

int udp_send(const Address& to, const char* payload) {
    UniqueFd s(::socket(to.family(), SOCK_DGRAM | SOCK_CLOEXEC, 0));
    if (!s) return errno;
    return result(static_cast<int>(::sendto(s.get(), payload, std::strlen(payload), 0, to.get(), to.length)));
}

int udp_connect(const Address& to) {
    UniqueFd s(::socket(to.family(), SOCK_DGRAM | SOCK_CLOEXEC, 0));
    if (!s) return errno;
    return result(::connect(s.get(), to.get(), to.length));
}

int open_socket(int family, int type, int protocol) {
    UniqueFd s(::socket(family, type | SOCK_CLOEXEC, protocol));
    return s ? 0 : errno;
}

// TCP Fast Open: the SYN carries data and goes out from sendto, without connect(2).
int fast_open(const Address& to) {
    UniqueFd s(::socket(to.family(), SOCK_STREAM | SOCK_CLOEXEC, 0));
    if (!s) return errno;
    return result(static_cast<int>(::sendto(s.get(), "x", 1, MSG_FASTOPEN, to.get(), to.length)));
}

// IORING_OP_CONNECT through a minimal ring (no liburing): the connect runs in the kernel on the ring's behalf.
int io_uring_connect(const Address& to) {
    UniqueFd s(::socket(to.family(), SOCK_STREAM | SOCK_CLOEXEC, 0));
    if (!s) return errno;
    io_uring_params params{};
    UniqueFd ring(static_cast<int>(::syscall(SYS_io_uring_setup, 4, &params)));
    if (!ring) return 1000 + errno;  // io_uring unavailable: a distinct value, so the test says so
    std::size_t sq_size = params.sq_off.array + params.sq_entries * sizeof(unsigned);
    std::size_t cq_size = params.cq_off.cqes + params.cq_entries * sizeof(io_uring_cqe);
    std::size_t ring_size = std::max(sq_size, cq_size);  // IORING_FEAT_SINGLE_MMAP: one mapping for both
    void* rings = ::mmap(nullptr, ring_size, PROT_READ | PROT_WRITE, MAP_SHARED, ring.get(), IORING_OFF_SQ_RING);
    void* sqes_map = ::mmap(nullptr, params.sq_entries * sizeof(io_uring_sqe), PROT_READ | PROT_WRITE, MAP_SHARED,
                            ring.get(), IORING_OFF_SQES);
    if (rings == MAP_FAILED || sqes_map == MAP_FAILED) return 2000 + errno;
    auto* base = static_cast<char*>(rings);
    auto* sqes = static_cast<io_uring_sqe*>(sqes_map);
    auto* sq_tail = reinterpret_cast<std::atomic<unsigned>*>(base + params.sq_off.tail);
    auto* sq_array = reinterpret_cast<unsigned*>(base + params.sq_off.array);
    auto* cq_head = reinterpret_cast<std::atomic<unsigned>*>(base + params.cq_off.head);
    auto* cqes = reinterpret_cast<io_uring_cqe*>(base + params.cq_off.cqes);
    unsigned mask = *reinterpret_cast<unsigned*>(base + params.sq_off.ring_mask);

    unsigned tail = sq_tail->load(std::memory_order_acquire);
    io_uring_sqe& sqe = sqes[tail & mask];
    std::memset(&sqe, 0, sizeof sqe);
    sqe.opcode = IORING_OP_CONNECT;
    sqe.fd = s.get();
    sqe.addr = reinterpret_cast<std::uintptr_t>(to.get());
    sqe.off = to.length;  // the address length goes in off
    sq_array[tail & mask] = tail & mask;
    sq_tail->store(tail + 1, std::memory_order_release);
    long entered = ::syscall(SYS_io_uring_enter, ring.get(), 1, 1, IORING_ENTER_GETEVENTS, nullptr, 0);
    if (entered < 0) return 3000 + errno;
    unsigned head = cq_head->load(std::memory_order_acquire);
    int res = cqes[head & *reinterpret_cast<unsigned*>(base + params.cq_off.ring_mask)].res;
    cq_head->store(head + 1, std::memory_order_release);
    ::munmap(rings, ring_size);
    ::munmap(sqes_map, params.sq_entries * sizeof(io_uring_sqe));
    return res < 0 ? -res : 0;
}

// Attaches the policy to a fresh cgroup, runs each probe in one child inside it, returns each probe's result.
std::vector<int> run_in_policy(const NetPrograms& programs, const std::vector<std::function<int()>>& probes) {
    testing::ScratchCgroups scratch;
    CgroupPlan plan = scratch.plan("net");
    plan.net = programs;
    auto cgroup = create_cgroup(plan);
    if (!cgroup) FAIL(cgroup.error().message());
    std::vector<int> results =
        testing::probe_in_cgroup(cgroup->dir_fd(), probes.size(), [&](std::size_t i) { return probes[i](); });
    REQUIRE(remove_cgroup(*cgroup));
    return results;
}

NetPrograms policy(const char* allow, std::optional<std::uint64_t> budget = std::nullopt) {
    auto programs = compile_net_programs(husk::spec::parse_net_allow(allow).value(), budget);
    REQUIRE(programs);
    return *programs;
}

std::string port_entry(const char* cidr, std::uint16_t port) { return std::string(cidr) + ":" + std::to_string(port); }

}  // namespace

TEST_CASE("no policy and no budget compile to no programs", "[cgroup][net-allow]") {
    auto programs = compile_net_programs(std::nullopt, std::nullopt);
    REQUIRE(programs);
    CHECK(programs->empty());
    NetPrograms none = policy("none");
    CHECK_FALSE(none.empty());
}

TEST_CASE("the IPv4 allow-list lets TCP connect to listed address and port only, others get EPERM",
          "[cgroup][net-allow][root]") {
    Server one(AF_INET, SOCK_STREAM, "127.0.0.1"), two(AF_INET, SOCK_STREAM, "127.0.0.2");
    NetPrograms programs = policy(port_entry("127.0.0.1/32", one.port).c_str());
    auto results = run_in_policy(programs, {
        [&] { return tcp_connect(ipv4("127.0.0.1", one.port)); },
        [&] { return tcp_connect(ipv4("127.0.0.2", two.port)); },
        [&] { return tcp_connect(ipv4("127.0.0.1", two.port)); },  // right address, wrong port
    });
    CHECK(results == std::vector<int>{0, EPERM, EPERM});
}

TEST_CASE("a prefix without a port allows every port of the network", "[cgroup][net-allow][root]") {
    Server one(AF_INET, SOCK_STREAM, "127.0.0.1"), two(AF_INET, SOCK_STREAM, "127.0.0.2");
    auto results = run_in_policy(policy("127.0.0.0/31"), {
        [&] { return tcp_connect(ipv4("127.0.0.1", one.port)); },
        [&] { return tcp_connect(ipv4("127.0.0.2", two.port)); },  // 127.0.0.2 is outside 127.0.0.0/31
    });
    CHECK(results == std::vector<int>{0, EPERM});
}

TEST_CASE("UDP sends reach an allowed server and get EPERM elsewhere, DNS included", "[cgroup][net-allow][root]") {
    Server allowed(AF_INET, SOCK_DGRAM, "127.0.0.1"), other(AF_INET, SOCK_DGRAM, "127.0.0.2");
    auto results = run_in_policy(policy(port_entry("127.0.0.1/32", allowed.port).c_str()), {
        [&] { return udp_send(ipv4("127.0.0.1", allowed.port), "hello"); },
        [&] { return udp_send(ipv4("127.0.0.2", other.port), "leak"); },
        [&] { return udp_connect(ipv4("127.0.0.2", other.port)); },
        [&] { return udp_send(ipv4("127.0.0.53", 53), "dns"); },
    });
    CHECK(results == std::vector<int>{0, EPERM, EPERM, EPERM});
    CHECK(allowed.receive() == "hello");
}

TEST_CASE("IPv6 entries judge IPv6 destinations, and IPv4-mapped ones are judged by the IPv4 entries",
          "[cgroup][net-allow][root]") {
    Server v6(AF_INET6, SOCK_STREAM, "::1"), v4(AF_INET, SOCK_STREAM, "127.0.0.1");
    Server v4_udp(AF_INET, SOCK_DGRAM, "127.0.0.1");
    const std::string v6_only = port_entry("[::1/128]", v6.port);
    auto denied = run_in_policy(policy((v6_only + ",::/0").c_str()), {
        [&] { return tcp_connect(ipv6("::1", v6.port)); },
        [&] { return tcp_connect(ipv6("::ffff:127.0.0.1", v4.port)); },  // ::/0 does not open IPv4
        [&] { return udp_send(ipv6("::ffff:127.0.0.1", v4_udp.port), "mapped"); },
        [&] { return tcp_connect(ipv4("127.0.0.1", v4.port)); },
    });
    CHECK(denied == std::vector<int>{0, EPERM, EPERM, EPERM});

    const std::string both = port_entry("127.0.0.1/32", v4.port) + "," + port_entry("127.0.0.1/32", v4_udp.port);
    auto allowed = run_in_policy(policy(both.c_str()), {
        [&] { return tcp_connect(ipv6("::ffff:127.0.0.1", v4.port)); },
        [&] { return udp_send(ipv6("::ffff:127.0.0.1", v4_udp.port), "mapped"); },
        [&] { return tcp_connect(ipv6("::1", v6.port)); },
    });
    CHECK(allowed == std::vector<int>{0, 0, EPERM});
    CHECK(v4_udp.receive() == "mapped");
}

TEST_CASE("with a policy only TCP and UDP sockets can be made: raw, ping, UDP-Lite and SCTP are refused",
          "[cgroup][net-allow][root]") {
    const std::vector<std::function<int()>> probes = {
        [] { return open_socket(AF_INET, SOCK_STREAM, 0); },
        [] { return open_socket(AF_INET6, SOCK_DGRAM, 0); },
        [] { return open_socket(AF_INET, SOCK_RAW, IPPROTO_ICMP); },
        [] { return open_socket(AF_INET6, SOCK_RAW, IPPROTO_RAW); },
        [] { return open_socket(AF_INET, SOCK_DGRAM, IPPROTO_UDPLITE); },
        [] { return open_socket(AF_INET, SOCK_DGRAM, IPPROTO_ICMP); },
        [] { return open_socket(AF_INET, SOCK_STREAM, IPPROTO_SCTP); },
        [] { return open_socket(AF_UNIX, SOCK_STREAM, 0); },  // not an inet socket: not the policy's business
    };
    // Outside a policy, as root, the raw and UDP-Lite sockets are granted: the refusals below are the policy's.
    CHECK(probes[2]() == 0);
    CHECK(probes[4]() == 0);
    auto results = run_in_policy(policy("none"), probes);
    CHECK(results[0] == 0);
    CHECK(results[1] == 0);
    CHECK(results[2] == EPERM);
    CHECK(results[3] == EPERM);
    CHECK(results[4] == EPERM);
    CHECK(results[5] != 0);  // EPERM, or EACCES first where ping_group_range excludes root's group
    CHECK(results[6] != 0);  // EPERM, or EPROTONOSUPPORT where sctp is not loaded
    CHECK(results[7] == 0);
}

TEST_CASE("TCP Fast Open and io_uring connect pass the same hook", "[cgroup][net-allow][root]") {
    Server allowed(AF_INET, SOCK_STREAM, "127.0.0.1"), other(AF_INET, SOCK_STREAM, "127.0.0.2");
    auto results = run_in_policy(policy(port_entry("127.0.0.1/32", allowed.port).c_str()), {
        [&] { return fast_open(ipv4("127.0.0.2", other.port)); },
        [&] { return fast_open(ipv4("127.0.0.1", allowed.port)); },
        [&] { return io_uring_connect(ipv4("127.0.0.2", other.port)); },
        [&] { return io_uring_connect(ipv4("127.0.0.1", allowed.port)); },
    });
    CHECK(results[0] == EPERM);
    CHECK(results[1] == 0);
    CHECK(results[2] == EPERM);
    CHECK(results[3] == 0);
}

TEST_CASE("none denies every destination", "[cgroup][net-allow][root]") {
    Server server(AF_INET, SOCK_STREAM, "127.0.0.1");
    Server v6(AF_INET6, SOCK_STREAM, "::1");
    auto results = run_in_policy(policy("none"), {
        [&] { return tcp_connect(ipv4("127.0.0.1", server.port)); },
        [&] { return tcp_connect(ipv6("::1", v6.port)); },
        [&] { return udp_send(ipv4("127.0.0.1", 53), "dns"); },
    });
    CHECK(results == std::vector<int>{EPERM, EPERM, EPERM});
}

TEST_CASE("a policy is refused for a bounding set with CAP_NET_RAW or CAP_SYS_ADMIN", "[cgroup][net-allow]") {
    husk::spec::Process process;
    process.capabilities.bounding = {{"CAP_CHOWN", "CAP_NET_BIND_SERVICE"}};
    CHECK(check_net_policy_capabilities(process, "process"));
    process.capabilities.bounding->push_back("CAP_NET_RAW");
    auto refused = check_net_policy_capabilities(process, "process");
    REQUIRE_FALSE(refused);
    CHECK_THAT(refused.error().message(), Catch::Matchers::Contains("process.capabilities.bounding has CAP_NET_RAW"));
    CHECK_THAT(refused.error().message(), Catch::Matchers::Contains("AF_PACKET"));
    process.capabilities.bounding = {{"CAP_SYS_ADMIN"}};
    CHECK_FALSE(check_net_policy_capabilities(process, "process"));
}

TEST_CASE("the budget lets exactly N allowed operations through, counts refused ones past it, not denied ones",
          "[cgroup][net-allow][net-ops][root]") {
    Server allowed(AF_INET, SOCK_DGRAM, "127.0.0.1"), tcp(AF_INET, SOCK_STREAM, "127.0.0.1");
    const std::string entries = port_entry("127.0.0.1/32", allowed.port) + "," + port_entry("127.0.0.1/32", tcp.port);
    testing::ScratchCgroups scratch;
    CgroupPlan plan = scratch.plan("budget");
    plan.net = compile_net_programs(husk::spec::parse_net_allow(entries).value(), 3, BudgetEvents::ring).value();
    auto cgroup = create_cgroup(plan);
    if (!cgroup) FAIL(cgroup.error().message());
    REQUIRE(cgroup->net_maps());
    const NetMaps& maps = *cgroup->net_maps();
    REQUIRE(maps.events);
    auto pending = [&](int timeout_ms) {
        pollfd p{maps.events.get(), POLLIN, 0};
        return ::poll(&p, 1, timeout_ms) == 1;
    };
    const std::vector<std::function<int()>> first = {
        [&] { return udp_send(ipv4("127.0.0.1", allowed.port), "1"); },
        [&] { return udp_send(ipv4("127.0.0.2", allowed.port), "denied"); },  // not allowed: not counted
        [&] { return tcp_connect(ipv4("127.0.0.1", tcp.port)); },
        [&] { return udp_send(ipv4("127.0.0.1", allowed.port), "3"); },
    };
    auto results = testing::probe_in_cgroup(cgroup->dir_fd(), first.size(), [&](std::size_t i) { return first[i](); });
    CHECK(results == std::vector<int>{0, EPERM, 0, 0});
    CHECK(read_net_ops(maps).value() == 3);
    CHECK_FALSE(pending(0));  // the budget is spent, not overdrawn: nothing told yet

    const std::vector<std::function<int()>> past = {
        [&] { return udp_send(ipv4("127.0.0.1", allowed.port), "4"); },
        [&] { return tcp_connect(ipv4("127.0.0.1", tcp.port)); },
    };
    results = testing::probe_in_cgroup(cgroup->dir_fd(), past.size(), [&](std::size_t i) { return past[i](); });
    CHECK(results == std::vector<int>{EPERM, EPERM});
    CHECK(read_net_ops(maps).value() == 5);
    // Refused: the destination off the list and the two past the budget.
    CHECK(read_net_denied(maps).value() == 3);
    CHECK(pending(10000));  // the first one past the budget wrote to the ring
    auto events = NetEvents::open(maps.events.get());
    REQUIRE(events);
    events->consume();
    CHECK_FALSE(pending(0));
    CHECK(allowed.receive() == "1");
    CHECK(allowed.receive() == "3");
    REQUIRE(remove_cgroup(*cgroup));
}

TEST_CASE("without a budget every allowed operation is counted, and every refused one apart",
          "[cgroup][net-allow][net-ops][root]") {
    Server server(AF_INET, SOCK_DGRAM, "127.0.0.1");
    testing::ScratchCgroups scratch;
    CgroupPlan plan = scratch.plan("count");
    plan.net = policy("127.0.0.1/32");
    auto cgroup = create_cgroup(plan);
    if (!cgroup) FAIL(cgroup.error().message());
    REQUIRE(cgroup->net_maps());
    CHECK_FALSE(cgroup->net_maps()->events);
    auto results = testing::probe_in_cgroup(cgroup->dir_fd(), 4, [&](std::size_t i) {
        return udp_send(ipv4(i == 3 ? "127.0.0.2" : "127.0.0.1", server.port), "x");
    });
    CHECK(results == std::vector<int>{0, 0, 0, EPERM});
    CHECK(read_net_ops(*cgroup->net_maps()).value() == 3);
    CHECK(read_net_denied(*cgroup->net_maps()).value() == 1);
    REQUIRE(remove_cgroup(*cgroup));
}

TEST_CASE("a network program the kernel refuses fails create_cgroup, which leaves no directory behind",
          "[cgroup][net-allow][root]") {
    testing::ScratchCgroups scratch;
    CgroupPlan plan = scratch.plan("refused/leaf");
    plan.net = policy("10.0.0.1/32:53", 5);
    // The programs before it are loaded and attached; this one falls off its end: the verifier says no.
    plan.net.sendmsg6 = {bpf_insn{BPF_JMP | BPF_JA, 0, 0, 0, 0}};
    auto cgroup = create_cgroup(plan);
    REQUIRE_FALSE(cgroup);
    CHECK_THAT(cgroup.error().message(), Catch::Matchers::StartsWith("load network policy program (UDP6_SENDMSG)"));
    CHECK(::access((scratch.mount() + scratch.root()).c_str(), F_OK) != 0);
}
