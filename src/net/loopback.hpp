// Bringing up "lo" in a new network namespace (it starts down; runc and crun set it up as well), with a
// netlink message built in the parent and sent by the child.
#pragma once

#include <linux/netlink.h>

#include <array>
#include <cstddef>
#include <cstdint>

#include "husk/error.hpp"

namespace husk::net {

struct LoopbackPlan {
    // RTM_NEWLINK for the link named "lo" with IFF_UP set, NLM_F_ACK: what `ip link set lo up` sends.
    alignas(nlmsghdr) std::array<unsigned char, 128> message = {};
    std::size_t length = 0;
    std::uint32_t sequence = 0;
};

// Builds the request: one fixed layout (a header, the link message, the name attribute), so no netlink
// library is needed and husk links statically (docs/ARCHITECTURE.md "Linking").
Result<LoopbackPlan> prepare_loopback();

// Opens a NETLINK_ROUTE socket (raw socket(2), no allocation), sends the request and checks
// the kernel's acknowledgement. Must run inside the container's network namespace.
Result<void> apply_loopback_up(const LoopbackPlan& plan) noexcept;

}  // namespace husk::net
