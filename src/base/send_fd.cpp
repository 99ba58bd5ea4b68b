#include "base/send_fd.hpp"

#include <sys/socket.h>

#include <cerrno>
#include <cstring>

namespace husk {

Result<std::size_t> send_with_fd(int socket, const void* data, std::size_t size, int fd) noexcept {
    iovec iov{const_cast<void*>(data), size};
    msghdr message{};
    message.msg_iov = &iov;
    message.msg_iovlen = 1;
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
    if (fd >= 0) {
        message.msg_control = control;
        message.msg_controllen = sizeof control;
        cmsghdr* header = CMSG_FIRSTHDR(&message);
        header->cmsg_level = SOL_SOCKET;
        header->cmsg_type = SCM_RIGHTS;
        header->cmsg_len = CMSG_LEN(sizeof(int));
        std::memcpy(CMSG_DATA(header), &fd, sizeof fd);
    }
    for (;;) {
        ssize_t n = ::sendmsg(socket, &message, MSG_NOSIGNAL);
        if (n >= 0) return static_cast<std::size_t>(n);
        if (errno != EINTR) return fail_sys(errno, "sendmsg");
    }
}

}  // namespace husk
