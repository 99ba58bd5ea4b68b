// run.husk.net-allow and run.husk.net-ops (docs/network-policy.md): cgroup BPF programs on the container's
// cgroup that judge every TCP connect and every addressed UDP send of its processes (exec'd ones included:
// they join the cgroup), and refuse the sockets those hooks would not see.
//
// - BPF_CGROUP_INET4_CONNECT / INET6_CONNECT (TCP and UDP connect, TCP Fast Open's sendto) and
//   BPF_CGROUP_UDP4_SENDMSG / UDP6_SENDMSG (sendto/sendmsg with an address): a destination outside the
//   allow-list fails with EPERM. In the IPv6 hooks an IPv4-mapped address (::ffff:a.b.c.d) is judged by the
//   IPv4 entries: the kernel sends it as IPv4 without running the IPv4 hooks.
// - BPF_CGROUP_INET_SOCK_CREATE: AF_INET/AF_INET6 sockets other than TCP stream and UDP datagram (raw, ICMP
//   ping, SCTP, UDP-Lite, MPTCP) fail with EPERM, as their traffic passes neither hook.
// - With a budget, each operation the allow-list lets through takes one from a counter (a BPF array map,
//   atomically); once it is spent they fail with EPERM. Operations the allow-list refuses do not take from it.
// - Every connect or send the programs refuse (off the allow-list, or past the budget) is counted in a slot of
//   its own (cgroup/net_maps.hpp), the verdict's factor `network-denied`. Sockets refused at creation are not.
#pragma once

#include <linux/bpf.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "husk/error.hpp"
#include "cgroup/net_maps.hpp"
#include "husk/spec.hpp"
#include "spec/net_allow.hpp"

namespace husk::cgroup {

// The programs for one container, compiled in the parent. Empty when the container has no network policy.
struct NetPrograms {
    std::vector<bpf_insn> connect4, connect6, sendmsg4, sendmsg6, sock_create;
    std::optional<std::uint64_t> budget;  // run.husk.net-ops
    bool events = false;                  // the first operation past the budget writes to the events ring

    bool empty() const noexcept { return sock_create.empty(); }
};

// The maps the programs refer to, by their index in load_program's map list.
inline constexpr std::int32_t net_counter_map = 0, net_events_map = 1;

// ring: the first operation past the budget writes to a ring buffer (run.husk.net-ops-kill's wake-up).
enum class BudgetEvents { none, ring };

// Pure. `allow` absent: every destination is allowed (a budget alone still counts them). Both absent: nothing.
// Every allowed operation is counted, with or without a budget (the verdict's usage.netOps).
Result<NetPrograms> compile_net_programs(const std::optional<spec::NetAllow>& allow, std::optional<std::uint64_t> budget,
                                         BudgetEvents events = BudgetEvents::none);

// AF_PACKET sockets pass no inet hook, and CAP_SYS_ADMIN could detach the programs: a policy is refused when
// the container's bounding set has either (fail closed). `source` names the process ("process", "exec").
Result<void> check_net_policy_capabilities(const spec::Process& process, const std::string& source);

// Creates the maps, loads the programs and attaches them to the cgroup (BPF_F_ALLOW_MULTI). An error leaves
// some attached: the caller removes the cgroup, which frees them. Empty maps when there are no programs.
Result<NetMaps> attach_net_programs(int cgroup_fd, const NetPrograms& programs, const std::string& where);

}  // namespace husk::cgroup
