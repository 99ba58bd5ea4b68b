// Terminal: with process.terminal, husk sends the pty master over --console-socket (SCM_RIGHTS) and
// the container's stdio is the pty's other end. Without a socket: terminal_relay_test.cpp.
#include <catch2/catch.hpp>

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "harness.hpp"
#include "terminal_support.hpp"

using namespace husk::test;
using Catch::Matchers::StartsWith;

namespace {

// A listening unix socket like the containerd shim's pty.sock; closed and unlinked at scope exit.
class ConsoleSocket {
public:
    explicit ConsoleSocket(std::string path) : path_(std::move(path)) {
        listener_ = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_un addr{};
        addr.sun_family = AF_UNIX;
        std::strncpy(addr.sun_path, path_.c_str(), sizeof addr.sun_path - 1);
        if (bind(listener_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || listen(listener_, 4) != 0)
            FAIL("console socket " << path_ << ": " << std::strerror(errno));
    }
    ~ConsoleSocket() {
        close(listener_);
        unlink(path_.c_str());
    }
    const std::string& path() const { return path_; }

    // Accepts one connection and returns the fd it carries, or -1.
    int receive_fd(Ms timeout) {
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

private:
    std::string path_;
    int listener_ = -1;
};

}  // namespace

TEST_CASE("with a terminal the pty master arrives on the console socket and the process sees a tty",
          "[integration][terminal]") {
    Sandbox sb;
    Bundle b = sb.bundle();
    b.config["process"]["terminal"] = true;
    b.write();
    std::string id = sb.id("tty");
    ConsoleSocket console(sb.dir() + "/console.sock");
    Process creating = sb.spawn_husk({"create", "--bundle", b.dir, "--console-socket", console.path(), id});
    int master = console.receive_fd(Ms(10000));
    Output created = creating.wait();
    INFO(created.describe());
    REQUIRE(created.exit_code == 0);
    REQUIRE(master >= 0);
    CHECK(isatty(master));

    REQUIRE(sb.husk({"start", id}).exit_code == 0);
    std::string output = read_until_hangup(master, Ms(10000));
    close(master);
    INFO("terminal output: " << output);
    Json r = last_json_line(output);
    CHECK(r["tty"].dump() == "[true,true,true]");
    for (const Json& fd : r["fds"].items()) CHECK_THAT(fd["target"].str(), StartsWith("/dev/pts/"));
    CHECK(sb.wait_for_status(id, "stopped")["status"].str() == "stopped");
    CHECK(sb.husk({"delete", id}).exit_code == 0);
    check_nothing_left(sb);
}

TEST_CASE("create with a terminal but without --console-socket is refused", "[integration][terminal]") {
    Sandbox sb;
    Bundle b = sb.bundle();
    b.config["process"]["terminal"] = true;
    Output out = sb.create(b, sb.id("tty"));
    INFO(out.describe());
    CHECK(out.exit_code != 0);
    CHECK(lines(out.err).size() == 1);
    CHECK_THAT(to_lower(out.err), Catch::Matchers::Contains("console"));
    check_nothing_left(sb);
}
