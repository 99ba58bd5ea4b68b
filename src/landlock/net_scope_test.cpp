// Landlock's network rights and scopes (abstract unix sockets, signals), against the real kernel.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstddef>
#include <cstring>
#include <string>

#include "landlock/test_support.hpp"

using namespace husk::landlock::test;

namespace {

using husk::UniqueFd;

sockaddr_in loopback(std::uint16_t port) {
    sockaddr_in address = {};
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return address;
}

// A TCP socket on 127.0.0.1 with a kernel-chosen port, listening or only bound.
struct TcpSocket {
    UniqueFd fd;
    std::uint16_t port = 0;
    explicit TcpSocket(bool listening) : fd(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) {
        REQUIRE(fd);
        sockaddr_in address = loopback(0);
        REQUIRE(bind(fd.get(), reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
        if (listening) REQUIRE(listen(fd.get(), 4) == 0);
        socklen_t size = sizeof address;
        REQUIRE(getsockname(fd.get(), reinterpret_cast<sockaddr*>(&address), &size) == 0);
        port = ntohs(address.sin_port);
    }
};

enum class Tcp { bind, connect };

// errno of bind(2) or connect(2) to 127.0.0.1:port on a fresh socket, 0 on success.
int tcp(Tcp what, std::uint16_t port) {
    UniqueFd fd(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    if (!fd) return errno;
    sockaddr_in address = loopback(port);
    auto* raw = reinterpret_cast<sockaddr*>(&address);
    return attempt(what == Tcp::connect ? connect(fd.get(), raw, sizeof address) : bind(fd.get(), raw, sizeof address));
}

// An abstract unix socket address ("\0name"), its length as bind/connect want it.
socklen_t abstract_address(sockaddr_un& address, const std::string& name) {
    address = {};
    address.sun_family = AF_UNIX;
    std::memcpy(address.sun_path + 1, name.data(), name.size());
    return static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + name.size());
}

}  // namespace

TEST_CASE("landlock bind_tcp rules allow binding the listed port only", "[landlock]") {
    if (!kernel_has_abi(4)) return;
    std::uint16_t allowed = 0, other = 0;
    {
        TcpSocket a(false), b(false);  // two distinct free ports, released before the child binds them
        allowed = a.port;
        other = b.port;
    }
    Landlock config;
    config.handled_access_network = {named("bind_tcp")};
    config.net_port = {{{named("bind_tcp")}, {allowed}}};
    Outcome out = enforce_then(prepare(config), [&](int* err) {
        err[0] = tcp(Tcp::bind, allowed);
        err[1] = tcp(Tcp::bind, other);
    });
    REQUIRE(out.applied);
    CHECK(out.err[0] == 0);
    CHECK(out.err[1] == EACCES);
}

TEST_CASE("landlock connect_tcp rules allow connecting to the listed port only", "[landlock]") {
    if (!kernel_has_abi(4)) return;
    TcpSocket allowed(true), other(true);
    Landlock config;
    config.handled_access_network = {named("connect_tcp"), named("bind_tcp")};
    config.net_port = {{{named("connect_tcp")}, {allowed.port}}};
    Outcome out = enforce_then(prepare(config), [&](int* err) {
        err[0] = tcp(Tcp::connect, allowed.port);
        err[1] = tcp(Tcp::connect, other.port);
    });
    REQUIRE(out.applied);
    CHECK(out.err[0] == 0);
    CHECK(out.err[1] == EACCES);
}

TEST_CASE("landlock signal scope denies signalling a process outside the domain", "[landlock]") {
    if (!kernel_has_abi(6)) return;
    Landlock config;
    config.scoped = {named("signal")};
    Outcome out = enforce_then(prepare(config), [](int* err) {
        err[0] = attempt(kill(getppid(), 0));  // the test process: outside the child's domain
        err[1] = attempt(kill(getpid(), 0));   // itself: inside
    });
    REQUIRE(out.applied);
    CHECK(out.err[0] == EPERM);
    CHECK(out.err[1] == 0);
}

TEST_CASE("landlock abstract unix socket scope denies connecting out of the domain", "[landlock]") {
    if (!kernel_has_abi(6)) return;
    const std::string outer_name = "husk-landlock-test-" + std::to_string(getpid());
    const std::string inner_name = outer_name + "-inner";
    UniqueFd listener(socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
    REQUIRE(listener);
    sockaddr_un address;
    socklen_t size = abstract_address(address, outer_name);
    REQUIRE(bind(listener.get(), reinterpret_cast<sockaddr*>(&address), size) == 0);
    REQUIRE(listen(listener.get(), 4) == 0);

    Landlock config;
    config.scoped = {named("abstract_unix_socket")};
    Outcome out = enforce_then(prepare(config), [&](int* err) {
        sockaddr_un target;
        UniqueFd client(socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
        socklen_t length = abstract_address(target, outer_name);
        err[0] = attempt(connect(client.get(), reinterpret_cast<sockaddr*>(&target), length));
        // A socket created inside the domain stays reachable from it.
        UniqueFd inner(socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
        length = abstract_address(target, inner_name);
        err[1] = attempt(bind(inner.get(), reinterpret_cast<sockaddr*>(&target), length));
        if (err[1] == 0) err[1] = attempt(listen(inner.get(), 1));
        UniqueFd inner_client(socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
        err[2] = attempt(connect(inner_client.get(), reinterpret_cast<sockaddr*>(&target), length));
    });
    REQUIRE(out.applied);
    CHECK(out.err[0] == EPERM);
    CHECK(out.err[1] == 0);
    CHECK(out.err[2] == 0);
}
