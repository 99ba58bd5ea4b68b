#include "net/loopback.hpp"

#include <libmnl/libmnl.h>
#include <linux/if.h>
#include <linux/rtnetlink.h>
#include <sys/socket.h>

#include <cerrno>

#include "husk/unique_fd.hpp"

namespace husk::net {

Result<LoopbackPlan> prepare_loopback() {
    LoopbackPlan plan;
    plan.sequence = 1;
    nlmsghdr* header = mnl_nlmsg_put_header(plan.message.data());
    header->nlmsg_type = RTM_NEWLINK;
    // Without NLM_F_CREATE the kernel only changes an existing link (rtnetlink(7)).
    header->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
    header->nlmsg_seq = plan.sequence;
    auto* link = static_cast<ifinfomsg*>(mnl_nlmsg_put_extra_header(header, sizeof(ifinfomsg)));
    link->ifi_family = AF_UNSPEC;
    link->ifi_index = 0;  // 0: the kernel looks the link up by IFLA_IFNAME instead of assuming index 1
    link->ifi_flags = IFF_UP;
    link->ifi_change = IFF_UP;
    if (!mnl_attr_put_strz_check(header, plan.message.size(), IFLA_IFNAME, "lo"))
        return fail_msg("netlink request for \"lo\" does not fit its buffer");
    plan.length = header->nlmsg_len;
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
    if (mnl_cb_run(answer, static_cast<std::size_t>(received), plan.sequence, 0, nullptr, nullptr) < 0)
        return fail_sys(errno, "set link up", "lo");
    return {};
}

}  // namespace husk::net
