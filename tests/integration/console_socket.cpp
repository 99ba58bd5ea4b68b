#include "console_socket.hpp"
#include "terminal_support.hpp"

#include <catch2/catch.hpp>

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace husk::test {

ConsoleSocket::ConsoleSocket(std::string path) : path_(std::move(path)) {
    listener_ = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, path_.c_str(), sizeof addr.sun_path - 1);
    if (bind(listener_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || listen(listener_, 4) != 0)
        FAIL("console socket " << path_ << ": " << std::strerror(errno));
}

ConsoleSocket::~ConsoleSocket() {
    close(listener_);
    unlink(path_.c_str());
}

int ConsoleSocket::receive_fd(Ms timeout) {
    pollfd p{listener_, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(timeout.count())) != 1) return -1;
    int conn = accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
    if (conn < 0) return -1;
    char data[512];
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))];
    iovec iov{data, sizeof data};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    int fd = -1;
    if (recvmsg(conn, &msg, MSG_CMSG_CLOEXEC) >= 0)
        for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
            if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) std::memcpy(&fd, CMSG_DATA(c), sizeof fd);
    close(conn);
    return fd;
}

void check_report_on_terminal(int master) {
    std::string output = read_until_hangup(master, Ms(10000));
    close(master);
    INFO("terminal output: " << output);
    Json r = last_json_line(output);
    CHECK(r["tty"].dump() == "[true,true,true]");
    for (const Json& fd : r["fds"].items()) CHECK_THAT(fd["target"].str(), Catch::Matchers::StartsWith("/dev/pts/"));
}

}  // namespace husk::test
