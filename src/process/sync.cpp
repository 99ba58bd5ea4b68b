#include "process/sync.hpp"

#include "base/send_fd.hpp"

#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace husk::process {

Result<void> send_message(int socket, SyncType type, const Error* error, int fd, const char* payload,
                          std::size_t payload_length) noexcept {
    SyncMessage message;
    message.type = type;
    message.payload_length = static_cast<std::uint32_t>(payload_length);
    if (error != nullptr) message.error = *error;

    if (auto sent = send_with_fd(socket, &message, sizeof message, fd); !sent) return fail_sys(sent.error().err, "sync send");
    if (payload_length > 0) {
        while (::send(socket, payload, payload_length, MSG_NOSIGNAL) < 0) {
            if (errno != EINTR) return fail_sys(errno, "sync send");
        }
    }
    return {};
}

namespace {

// One datagram (SOCK_SEQPACKET keeps the boundary of each write).
Result<void> write_datagram(int socket, const void* data, std::size_t size) noexcept {
    while (::write(socket, data, size) < 0) {
        if (errno != EINTR) return fail_sys(errno, "sync write");
    }
    return {};
}

}  // namespace

Result<void> write_message(int socket, SyncType type, const Error* error, const char* payload,
                           std::size_t payload_length) noexcept {
    SyncMessage message;
    message.type = type;
    message.payload_length = static_cast<std::uint32_t>(payload_length);
    if (error != nullptr) message.error = *error;
    TRY(write_datagram(socket, &message, sizeof message));
    if (payload_length > 0) TRY(write_datagram(socket, payload, payload_length));
    return {};
}

Result<SyncMessage> receive_message(int socket, UniqueFd* fd, char* payload, std::size_t capacity) noexcept {
    SyncMessage message;
    iovec iov{&message, sizeof message};
    msghdr header{};
    header.msg_iov = &iov;
    header.msg_iovlen = 1;
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
    header.msg_control = control;
    header.msg_controllen = sizeof control;
    ssize_t n;
    while ((n = ::recvmsg(socket, &header, MSG_CMSG_CLOEXEC)) < 0) {
        if (errno != EINTR) return fail_sys(errno, "sync receive");
    }
    if (n == 0) return fail_sys(EPIPE, "sync receive");
    if (static_cast<std::size_t>(n) != sizeof message) return fail_sys(EPROTO, "sync receive");
    for (cmsghdr* cmsg = CMSG_FIRSTHDR(&header); cmsg != nullptr; cmsg = CMSG_NXTHDR(&header, cmsg)) {
        if (cmsg->cmsg_level == SOL_SOCKET && cmsg->cmsg_type == SCM_RIGHTS) {
            int received = -1;
            std::memcpy(&received, CMSG_DATA(cmsg), sizeof received);
            if (fd != nullptr) fd->reset(received);
            else ::close(received);
        }
    }
    if (message.payload_length > 0) {
        if (payload == nullptr || message.payload_length >= capacity) return fail_sys(EMSGSIZE, "sync receive");
        ssize_t got;
        while ((got = ::recv(socket, payload, capacity - 1, 0)) < 0) {
            if (errno != EINTR) return fail_sys(errno, "sync receive");
        }
        payload[got] = '\0';
    }
    return message;
}

Result<UniqueFd> request_bind_tree(const void* sync_socket, std::size_t index) noexcept {
    const int sync = *static_cast<const int*>(sync_socket);
    const auto wanted = static_cast<std::uint32_t>(index);
    TRY(send_message(sync, SyncType::bind_tree, nullptr, -1, reinterpret_cast<const char*>(&wanted), sizeof wanted));
    UniqueFd tree;
    SyncMessage reply = TRY(receive_message(sync, &tree));
    if (reply.type != SyncType::bind_tree || !tree) return fail_sys(EPROTO, "sync receive", "bind mount tree");
    return tree;
}

}  // namespace husk::process
