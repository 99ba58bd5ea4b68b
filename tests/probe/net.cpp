// The probe's network verbs (docs/network-policy.md tests): a client side that runs inside a container and
// says what each connect/send returned, and a server side for a test network namespace that says what
// reached it. Every line is one JSON object.
//   probe net tcp|udp|udp-connect|fastopen ADDR PORT PAYLOAD   one operation: {"op":..,"to":..,"errno":E}
//   probe net ops tcp|udp ADDR PORT COUNT                      COUNT operations: {"done":N,"errno":E}
//   probe net socket tcp|udp|raw|ping|udplite                  socket(AF_INET, ...): {"socket":..,"errno":E}
//   probe serve                                                lo up; TCP and UDP on 127.0.0.1:7001,
//       127.0.0.2:7002, [::1]:7003, UDP 127.0.0.1:53; {"ready":true}, then {"server":..,"at":..,"got":..}
#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "net.hpp"

namespace {

void emit(const std::string& line) {
    std::string out = line + "\n";
    for (std::size_t off = 0; off < out.size();) {
        ssize_t n = write(1, out.data() + off, out.size() - off);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return;
        off += static_cast<std::size_t>(n);
    }
}

// Payloads and addresses are plain words in these tests: no escaping needed beyond refusing quotes.
std::string safe(const std::string& s) {
    std::string out;
    for (char c : s) out += (c == '"' || c == '\\' || static_cast<unsigned char>(c) < 0x20) ? '?' : c;
    return out;
}

struct Address {
    sockaddr_storage storage{};
    socklen_t length = 0;
    int family() const { return storage.ss_family; }
    const sockaddr* get() const { return reinterpret_cast<const sockaddr*>(&storage); }
};

bool parse_address(const char* text, int port, Address& out) {
    auto* in = reinterpret_cast<sockaddr_in*>(&out.storage);
    auto* in6 = reinterpret_cast<sockaddr_in6*>(&out.storage);
    if (inet_pton(AF_INET, text, &in->sin_addr) == 1) {
        in->sin_family = AF_INET;
        in->sin_port = htons(static_cast<uint16_t>(port));
        out.length = sizeof(sockaddr_in);
        return true;
    }
    if (inet_pton(AF_INET6, text, &in6->sin6_addr) == 1) {
        in6->sin6_family = AF_INET6;
        in6->sin6_port = htons(static_cast<uint16_t>(port));
        out.length = sizeof(sockaddr_in6);
        return true;
    }
    return false;
}

// One operation; 0 or errno.
int operate(const std::string& op, const Address& to, const std::string& payload) {
    const int type = op == "tcp" || op == "fastopen" ? SOCK_STREAM : SOCK_DGRAM;
    int fd = socket(to.family(), type | SOCK_CLOEXEC, 0);
    if (fd < 0) return errno;
    int err = 0;
    if (op == "udp") {
        if (sendto(fd, payload.data(), payload.size(), 0, to.get(), to.length) < 0) err = errno;
    } else if (op == "fastopen") {
        if (sendto(fd, payload.data(), payload.size(), MSG_FASTOPEN, to.get(), to.length) < 0) err = errno;
    } else {
        if (connect(fd, to.get(), to.length) < 0) err = errno;
        else if (!payload.empty() && send(fd, payload.data(), payload.size(), MSG_NOSIGNAL) < 0) err = errno;
    }
    close(fd);
    return err;
}

int socket_errno(const std::string& kind) {
    int type = SOCK_STREAM, protocol = 0;
    if (kind == "udp") type = SOCK_DGRAM;
    else if (kind == "raw") type = SOCK_RAW, protocol = IPPROTO_ICMP;
    else if (kind == "ping") type = SOCK_DGRAM, protocol = IPPROTO_ICMP;
    else if (kind == "udplite") type = SOCK_DGRAM, protocol = IPPROTO_UDPLITE;
    int fd = socket(AF_INET, type | SOCK_CLOEXEC, protocol);
    if (fd < 0) return errno;
    close(fd);
    return 0;
}

[[noreturn]] void usage() {
    emit("{\"error\":\"usage: probe net tcp|udp|udp-connect|fastopen ADDR PORT PAYLOAD | net ops tcp|udp ADDR PORT "
         "COUNT | net socket KIND | serve\",\"errno\":22}");
    _exit(1);
}

struct Listener {
    int fd;
    bool tcp;
    std::string at;
};

void bring_up_loopback() {
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    ifreq request{};
    std::strcpy(request.ifr_name, "lo");
    if (fd < 0 || ioctl(fd, SIOCGIFFLAGS, &request) != 0) {
        emit("{\"error\":\"SIOCGIFFLAGS lo\",\"errno\":" + std::to_string(errno) + "}");
        _exit(1);
    }
    request.ifr_flags = static_cast<short>(request.ifr_flags | IFF_UP);
    if (ioctl(fd, SIOCSIFFLAGS, &request) != 0) {
        emit("{\"error\":\"SIOCSIFFLAGS lo\",\"errno\":" + std::to_string(errno) + "}");
        _exit(1);
    }
    close(fd);
}

Listener listen_at(const char* address, int port, bool tcp) {
    Address at;
    parse_address(address, port, at);
    int fd = socket(at.family(), (tcp ? SOCK_STREAM : SOCK_DGRAM) | SOCK_CLOEXEC, 0);
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (fd < 0 || bind(fd, at.get(), at.length) != 0 || (tcp && listen(fd, 64) != 0)) {
        emit(std::string("{\"error\":\"listen ") + address + ":" + std::to_string(port) + "\",\"errno\":" +
             std::to_string(errno) + "}");
        _exit(1);
    }
    return Listener{fd, tcp, std::string(address) + ":" + std::to_string(port)};
}

void report(const Listener& l, const std::string& got) {
    emit(std::string("{\"server\":\"") + (l.tcp ? "tcp" : "udp") + "\",\"at\":\"" + l.at + "\",\"got\":\"" + safe(got) +
         "\"}");
}

[[noreturn]] void serve() {
    bring_up_loopback();
    std::vector<Listener> listeners;
    for (bool tcp : {true, false}) {
        listeners.push_back(listen_at("127.0.0.1", 7001, tcp));
        listeners.push_back(listen_at("127.0.0.2", 7002, tcp));
        listeners.push_back(listen_at("::1", 7003, tcp));
    }
    listeners.push_back(listen_at("127.0.0.1", 53, false));
    emit("{\"ready\":true}");
    std::vector<pollfd> fds;
    for (const Listener& l : listeners) fds.push_back(pollfd{l.fd, POLLIN, 0});
    for (;;) {
        if (poll(fds.data(), fds.size(), -1) < 0 && errno != EINTR) _exit(1);
        for (std::size_t i = 0; i < fds.size(); ++i) {
            if (!(fds[i].revents & POLLIN)) continue;
            const Listener& l = listeners[i];
            char buffer[512];
            if (!l.tcp) {
                ssize_t n = recv(l.fd, buffer, sizeof buffer, 0);
                if (n >= 0) report(l, std::string(buffer, static_cast<std::size_t>(n)));
                continue;
            }
            int conn = accept4(l.fd, nullptr, nullptr, SOCK_CLOEXEC);
            if (conn < 0) continue;
            // The clients send a word and close: read it to the end (bounded, so a silent client cannot stall us).
            timeval limit{2, 0};
            setsockopt(conn, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
            std::string got;
            for (ssize_t n; (n = recv(conn, buffer, sizeof buffer, 0)) > 0;) got.append(buffer, static_cast<std::size_t>(n));
            close(conn);
            report(l, got);
        }
    }
}

}  // namespace

int net_main(int argc, char** argv) {
    // argv[1] is "net" or "serve".
    std::string verb = argv[1];
    if (verb == "serve") serve();
    if (argc < 4) usage();
    std::string op = argv[2];
    if (op == "socket") {
        emit("{\"socket\":\"" + safe(argv[3]) + "\",\"errno\":" + std::to_string(socket_errno(argv[3])) + "}");
        return 0;
    }
    if (op == "ops") {
        if (argc < 7) usage();
        Address to;
        if (!parse_address(argv[4], atoi(argv[5]), to)) usage();
        long count = atol(argv[6]), done = 0;
        int err = 0;
        for (; done < count; ++done)
            if ((err = operate(argv[3], to, "x")) != 0) break;
        emit("{\"done\":" + std::to_string(done) + ",\"errno\":" + std::to_string(err) + "}");
        return 0;
    }
    if (argc < 6) usage();
    Address to;
    if (!parse_address(argv[3], atoi(argv[4]), to)) usage();
    int err = operate(op, to, argv[5]);
    emit("{\"op\":\"" + safe(op) + "\",\"to\":\"" + safe(argv[3]) + ":" + safe(argv[4]) + "\",\"errno\":" +
         std::to_string(err) + "}");
    return 0;
}
