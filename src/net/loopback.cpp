#include "net/loopback.hpp"

#include <linux/if.h>
#include <linux/rtnetlink.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>

#include "husk/unique_fd.hpp"

namespace husk::net {
namespace {

// The request, as laid out on the wire (netlink(7), rtnetlink(7)): the header, the link message, and one
// IFLA_IFNAME attribute holding "lo\0". Each part is NLMSG_ALIGNed: the structs and a 4 + 3 byte attribute
// padded to 8.
struct LinkUpRequest {
    nlmsghdr header;
    ifinfomsg link;
    rtattr name_attribute;
    char name[4];
};
static_assert(sizeof(LinkUpRequest) == NLMSG_LENGTH(sizeof(ifinfomsg)) + RTA_SPACE(sizeof "lo"));

// Whether one answer acknowledges request `sequence`: errno (0 for the acknowledgement, the kernel's error
// otherwise, EPROTO for anything that does not belong to the request).
int acknowledgement(const unsigned char* answer, std::size_t length, std::uint32_t sequence) noexcept {
    const auto* message = reinterpret_cast<const nlmsghdr*>(answer);
    int remaining = static_cast<int>(length);
    for (; NLMSG_OK(message, remaining); message = NLMSG_NEXT(message, remaining)) {
        if (message->nlmsg_seq != sequence) return EPROTO;
        if (message->nlmsg_type == NLMSG_DONE) return 0;
        if (message->nlmsg_type != NLMSG_ERROR) continue;
        if (message->nlmsg_len < NLMSG_LENGTH(sizeof(nlmsgerr))) return EBADMSG;
        nlmsgerr error;
        std::memcpy(&error, NLMSG_DATA(message), sizeof error);
        return error.error < 0 ? -error.error : 0;
    }
    return EPROTO;
}

}  // namespace

Result<LoopbackPlan> prepare_loopback() {
    LoopbackPlan plan;
    plan.sequence = 1;
    LinkUpRequest request{};
    request.header.nlmsg_len = sizeof request;
    request.header.nlmsg_type = RTM_NEWLINK;
    // Without NLM_F_CREATE the kernel only changes an existing link (rtnetlink(7)).
    request.header.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
    request.header.nlmsg_seq = plan.sequence;
    request.link.ifi_family = AF_UNSPEC;
    request.link.ifi_index = 0;  // 0: the kernel looks the link up by IFLA_IFNAME instead of assuming index 1
    request.link.ifi_flags = IFF_UP;
    request.link.ifi_change = IFF_UP;
    request.name_attribute.rta_type = IFLA_IFNAME;
    request.name_attribute.rta_len = RTA_LENGTH(sizeof "lo");
    std::memcpy(request.name, "lo", sizeof "lo");
    static_assert(sizeof request <= sizeof plan.message);
    std::memcpy(plan.message.data(), &request, sizeof request);
    plan.length = sizeof request;
    return plan;
}

Result<void> apply_loopback_up(const LoopbackPlan& plan) noexcept {
    UniqueFd socket(::socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE));
    if (!socket) return fail_sys(errno, "open a NETLINK_ROUTE socket");
    sockaddr_nl kernel = {};
    kernel.nl_family = AF_NETLINK;
    if (::sendto(socket.get(), plan.message.data(), plan.length, 0, reinterpret_cast<const sockaddr*>(&kernel),
                 sizeof kernel) != static_cast<ssize_t>(plan.length))
        return fail_sys(errno, "send netlink request to set link up", "lo");

    // The answer is one NLMSG_ERROR: error 0 is the acknowledgement (netlink(7)).
    alignas(nlmsghdr) unsigned char answer[1024];
    ssize_t received;
    do {
        received = ::recv(socket.get(), answer, sizeof answer, 0);
    } while (received < 0 && errno == EINTR);
    if (received < 0) return fail_sys(errno, "receive netlink answer to set link up", "lo");
    if (int err = acknowledgement(answer, static_cast<std::size_t>(received), plan.sequence); err != 0)
        return fail_sys(err, "set link up", "lo");
    return {};
}

}  // namespace husk::net
