#include "seccomp_agent.hpp"

#include <catch2/catch.hpp>

#include <linux/seccomp.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace husk::test {

Agent::Agent(const std::string& path) : path_(path) {
    listener_ = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::strncpy(address.sun_path, path.c_str(), sizeof address.sun_path - 1);
    REQUIRE(bind(listener_, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
    REQUIRE(listen(listener_, 4) == 0);
    thread_ = std::thread([this] { serve(); });
}

Agent::~Agent() {
    stop_ = true;
    thread_.join();
    close(listener_);
    unlink(path_.c_str());
}

std::string Agent::state() const {
    std::lock_guard lock(mutex_);
    return states_.empty() ? std::string() : states_.front();
}

std::vector<std::string> Agent::states() const {
    std::lock_guard lock(mutex_);
    return states_;
}

// The listener and every notify fd received so far, in one poll.
void Agent::serve() {
    std::vector<pollfd> fds{{listener_, POLLIN, 0}};
    while (!stop_) {
        if (poll(fds.data(), fds.size(), 100) <= 0) continue;
        if (fds[0].revents & POLLIN) {
            int notify = receive();
            if (notify >= 0) fds.push_back({notify, POLLIN, 0});
        }
        for (std::size_t i = 1; i < fds.size();) {
            if (fds[i].revents & (POLLHUP | POLLERR)) {  // that process has gone
                close(fds[i].fd);
                fds.erase(fds.begin() + static_cast<std::ptrdiff_t>(i));
                continue;
            }
            if (fds[i].revents & POLLIN) answer(fds[i].fd);
            ++i;
        }
    }
    for (std::size_t i = 1; i < fds.size(); ++i) close(fds[i].fd);
}

int Agent::receive() {
    int connection = accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
    if (connection < 0) return -1;
    static char buffer[65536];
    iovec iov{buffer, sizeof buffer - 1};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
    msghdr message{};
    message.msg_iov = &iov;
    message.msg_iovlen = 1;
    message.msg_control = control;
    message.msg_controllen = sizeof control;
    ssize_t n = recvmsg(connection, &message, MSG_CMSG_CLOEXEC);
    close(connection);
    if (n <= 0) return -1;
    {
        std::lock_guard lock(mutex_);
        states_.emplace_back(buffer, static_cast<std::size_t>(n));
    }
    cmsghdr* cmsg = CMSG_FIRSTHDR(&message);
    if (cmsg == nullptr || cmsg->cmsg_type != SCM_RIGHTS) return -1;
    int notify = -1;
    std::memcpy(&notify, CMSG_DATA(cmsg), sizeof notify);
    return notify;
}

void Agent::answer(int notify) {
    seccomp_notif request{};
    if (ioctl(notify, SECCOMP_IOCTL_NOTIF_RECV, &request) != 0) return;
    seccomp_notif_resp response{};
    response.id = request.id;
    response.error = -EDOM;
    if (ioctl(notify, SECCOMP_IOCTL_NOTIF_SEND, &response) == 0) ++answered_;
}

}  // namespace husk::test
