// SCMP_ACT_NOTIFY end to end: the child's listener fd goes to husk, send_to_listener hands it to a test agent
// with the container process state, and the agent answers the child's system call.
#include "seccomp/notify.hpp"

#include <linux/seccomp.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "seccomp/test_support.hpp"
#include "base/json_reader.hpp"

using namespace husk::seccomp;
using namespace husk::seccomp::test;
using husk::UniqueFd;
using husk::json::Node;

namespace {

// A listening AF_UNIX SOCK_STREAM socket in a fresh directory, removed with it.
class TestAgent {
public:
    TestAgent() {
        char dir[] = "/tmp/husk-seccomp-agent-XXXXXX";
        REQUIRE(::mkdtemp(dir) != nullptr);
        dir_ = dir;
        path_ = dir_ + "/agent.sock";
        socket_.reset(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
        sockaddr_un address{};
        address.sun_family = AF_UNIX;
        std::strcpy(address.sun_path, path_.c_str());
        REQUIRE(::bind(socket_.get(), reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
        REQUIRE(::listen(socket_.get(), 4) == 0);
    }
    ~TestAgent() { std::filesystem::remove_all(dir_); }
    const std::string& path() const { return path_; }

    // Accepts one connection and reads it to EOF: the message and the fds that came with it.
    std::pair<std::string, std::vector<UniqueFd>> receive() {
        UniqueFd connection(::accept4(socket_.get(), nullptr, nullptr, SOCK_CLOEXEC));
        REQUIRE(connection);
        std::string text;
        std::vector<UniqueFd> fds;
        for (;;) {
            char buffer[4096];
            iovec iov{buffer, sizeof buffer};
            alignas(cmsghdr) char control[CMSG_SPACE(4 * sizeof(int))] = {};
            msghdr message{};
            message.msg_iov = &iov;
            message.msg_iovlen = 1;
            message.msg_control = control;
            message.msg_controllen = sizeof control;
            ssize_t n = ::recvmsg(connection.get(), &message, MSG_CMSG_CLOEXEC);
            REQUIRE(n >= 0);
            for (cmsghdr* h = CMSG_FIRSTHDR(&message); h != nullptr; h = CMSG_NXTHDR(&message, h)) {
                std::size_t count = (h->cmsg_len - CMSG_LEN(0)) / sizeof(int);
                for (std::size_t i = 0; i < count; ++i) {
                    int fd;
                    std::memcpy(&fd, CMSG_DATA(h) + i * sizeof(int), sizeof fd);
                    fds.emplace_back(fd);
                }
            }
            if (n == 0) break;
            text.append(buffer, static_cast<std::size_t>(n));
        }
        return {text, std::move(fds)};
    }

private:
    std::string dir_, path_;
    UniqueFd socket_;
};

const std::string kState = R"({"ociVersion":"1.3.0","id":"c1","status":"creating","pid":42,"bundle":"/b"})";

// One fd over a socketpair, for the child → parent step the container process does with the sync socket.
void send_fd(int socket, int fd) {
    char byte = 0;
    iovec iov{&byte, 1};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
    msghdr message{};
    message.msg_iov = &iov;
    message.msg_iovlen = 1;
    message.msg_control = control;
    message.msg_controllen = sizeof control;
    cmsghdr* h = CMSG_FIRSTHDR(&message);
    h->cmsg_level = SOL_SOCKET;
    h->cmsg_type = SCM_RIGHTS;
    h->cmsg_len = CMSG_LEN(sizeof(int));
    std::memcpy(CMSG_DATA(h), &fd, sizeof fd);
    if (::sendmsg(socket, &message, 0) != 1) ::_exit(2);
}

UniqueFd receive_fd(int socket) {
    char byte;
    iovec iov{&byte, 1};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
    msghdr message{};
    message.msg_iov = &iov;
    message.msg_iovlen = 1;
    message.msg_control = control;
    message.msg_controllen = sizeof control;
    REQUIRE(::recvmsg(socket, &message, MSG_CMSG_CLOEXEC) == 1);
    cmsghdr* h = CMSG_FIRSTHDR(&message);
    REQUIRE(h != nullptr);
    int fd;
    std::memcpy(&fd, CMSG_DATA(h), sizeof fd);
    return UniqueFd(fd);
}

}  // namespace

TEST_CASE("container_process_state_json has the fields config-linux.md lists", "[seccomp]") {
    auto json = container_process_state_json("1.3.0", 4422, "MKNOD=/dev/null", kState);
    REQUIRE(json);
    auto tree = husk::json::parse_tree(*json);
    REQUIRE(tree);
    Node root(tree->get(), "");
    CHECK(root.field("ociVersion").as_string() == "1.3.0");
    auto fds = root.field("fds").as_array();
    REQUIRE(fds);
    REQUIRE(fds->size() == 1);
    CHECK((*fds)[0].as_string() == "seccompFd");
    CHECK(root.field("pid").as_int64() == 4422);
    CHECK(root.field("metadata").as_string() == "MKNOD=/dev/null");
    CHECK(root.field("state").field("id").as_string() == "c1");
    CHECK(root.field("state").field("status").as_string() == "creating");
    auto without_metadata = container_process_state_json("1.3.0", 1, "", kState);
    REQUIRE(without_metadata);
    CHECK(without_metadata->find("metadata") == std::string::npos);
    CHECK_FALSE(container_process_state_json("1.3.0", 1, "", "[1]"));
    CHECK_FALSE(container_process_state_json("1.3.0", 1, "", "{"));
}

TEST_CASE("send_to_listener sends the state with the fd attached, once per connection", "[seccomp]") {
    TestAgent agent;
    UniqueFd memfd(::memfd_create("husk-test-notify", MFD_CLOEXEC));
    REQUIRE(memfd);
    std::string message = *container_process_state_json("1.3.0", 7, "", kState);
    REQUIRE(send_to_listener(agent.path(), memfd.get(), message));
    auto [text, fds] = agent.receive();
    CHECK(text == message);
    REQUIRE(fds.size() == 1);
    struct stat sent{}, received{};
    REQUIRE(::fstat(memfd.get(), &sent) == 0);
    REQUIRE(::fstat(fds[0].get(), &received) == 0);
    CHECK(sent.st_ino == received.st_ino);
    CHECK(sent.st_dev == received.st_dev);
}

TEST_CASE("send_to_listener fails when nothing listens at listenerPath", "[seccomp]") {
    auto sent = send_to_listener("/nonexistent/husk-agent.sock", 0, "{}");
    REQUIRE_FALSE(sent);
    CHECK(sent.error().message() == "connect \"/nonexistent/husk-agent.sock\": no such file or directory");
    CHECK_FALSE(send_to_listener(std::string(200, 'x'), 0, "{}"));
}

TEST_CASE("a seccomp agent gets the listener through send_to_listener and answers the child's call", "[seccomp]") {
    TestAgent agent;
    auto plan = prepare(R"({"defaultAction": "SCMP_ACT_ALLOW", "listenerPath": ")" + agent.path() + R"(",
        "flags": ["SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV", "SECCOMP_FILTER_FLAG_TSYNC"],
        "syscalls": [{"names": ["getppid"], "action": "SCMP_ACT_NOTIFY"}]})");
    int pair[2];
    REQUIRE(::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) == 0);
    UniqueFd parent_end(pair[0]), child_end(pair[1]);
    int pipe_fds[2];
    REQUIRE(::pipe2(pipe_fds, O_CLOEXEC) == 0);
    UniqueFd report_read(pipe_fds[0]), report_write(pipe_fds[1]);
    pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) ::_exit(3);
        auto listener = apply_seccomp(plan);
        if (!listener || *listener < 0) ::_exit(4);
        send_fd(child_end.get(), *listener);  // as the container process does over the sync socket
        Call answered = call(SYS_getppid);    // blocks until the agent answers
        ::_exit(::write(report_write.get(), &answered, sizeof answered) == sizeof answered ? 0 : 5);
    }
    child_end.reset();
    report_write.reset();
    UniqueFd listener = receive_fd(parent_end.get());
    auto message = container_process_state_json("1.3.0", pid, plan.listener_metadata, kState);
    REQUIRE(message);
    REQUIRE(send_to_listener(plan.listener_path, listener.get(), *message));
    listener.reset();  // the agent holds its own copy now

    auto [text, fds] = agent.receive();
    REQUIRE(fds.size() == 1);
    seccomp_notif request;
    std::memset(&request, 0, sizeof request);  // SECCOMP_IOCTL_NOTIF_RECV wants a zeroed buffer
    REQUIRE(::ioctl(fds[0].get(), SECCOMP_IOCTL_NOTIF_RECV, &request) == 0);
    CHECK(request.pid == static_cast<__u32>(pid));
    CHECK(request.data.nr == SYS_getppid);
    seccomp_notif_resp response{};
    response.id = request.id;
    response.val = 4242;
    REQUIRE(::ioctl(fds[0].get(), SECCOMP_IOCTL_NOTIF_SEND, &response) == 0);

    Call answered{};
    CHECK(::read(report_read.get(), &answered, sizeof answered) == sizeof answered);
    int status = 0;
    REQUIRE(::waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
    CHECK(answered.result == 4242);
    CHECK(answered.error == 0);
}
