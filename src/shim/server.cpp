#include "shim/server.hpp"

#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>

#include "shim/actions.hpp"
#include "shim/footprint.hpp"
#include "shim/loop.hpp"
#include "shim/paths.hpp"
#include "shim/publisher.hpp"
#include "shim/service.hpp"
#include "ttrpc/frame.hpp"

namespace husk::shim {
namespace {

// Input a connection may hold unparsed: one whole frame at most (FrameReader discards an oversized one).
constexpr std::size_t max_buffered = ttrpc::max_message + 64;

struct Connection {
    UniqueFd fd;
    std::uint64_t key = 0;
    ttrpc::FrameReader reader;
    std::string out;
    bool writing = false;
};

class Server {
public:
    Server(Loop& loop, TaskService& service) : loop_(loop), service_(service) {}

    Result<void> listen(UniqueFd listener) {
        listener_ = std::move(listener);
        TRY(loop_.watch(listener_.get(), EPOLLIN, [this](std::uint32_t) { accept(); }));
        return {};
    }

    // Whatever answers are still queued, written before the shim exits.
    void flush_all() {
        for (auto& [id, connection] : connections_) {
            while (!connection->out.empty()) {
                ssize_t n = ::send(connection->fd.get(), connection->out.data(), connection->out.size(), MSG_NOSIGNAL);
                if (n <= 0) break;
                connection->out.erase(0, static_cast<std::size_t>(n));
            }
        }
    }

private:
    void accept() {
        int fd = ::accept4(listener_.get(), nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (fd < 0) return;
        auto connection = std::make_unique<Connection>();
        connection->fd = UniqueFd(fd);
        // Only the shim's own user (containerd's): the socket's 0600 in a 0700 directory says so already, and
        // the peer's credentials say it again, as ttrpc's servers check them.
        ucred peer{};
        socklen_t size = sizeof peer;
        if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &size) != 0 || peer.uid != ::geteuid()) return;
        std::uint64_t id = next_id_++;
        auto key = loop_.watch(fd, EPOLLIN, [this, id](std::uint32_t events) { on_event(id, events); });
        if (!key) return;
        connection->key = *key;
        connections_.emplace(id, std::move(connection));
    }

    void close(std::uint64_t id) {
        auto found = connections_.find(id);
        if (found == connections_.end()) return;
        loop_.unwatch(found->second->key, found->second->fd.get());
        connections_.erase(found);
    }

    void on_event(std::uint64_t id, std::uint32_t events) {
        auto found = connections_.find(id);
        if (found == connections_.end()) return;
        Connection& c = *found->second;
        if (events & EPOLLOUT) write(id);
        if (!(events & (EPOLLIN | EPOLLHUP | EPOLLERR))) return;
        char chunk[64 * 1024];
        ssize_t n = ::read(c.fd.get(), chunk, sizeof chunk);
        if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
        if (n <= 0) {  // containerd went away (or restarts): its tasks stay; it connects again
            close(id);
            return;
        }
        c.reader.feed(std::string_view(chunk, static_cast<std::size_t>(n)));
        while (auto frame = c.reader.next()) {
            handle(id, *frame);
            if (!connections_.contains(id)) return;
        }
        if (c.reader.buffered() > max_buffered) close(id);
    }

    void handle(std::uint64_t id, const ttrpc::Frame& frame) {
        auto respond = [this, id, stream = frame.stream](const ttrpc::Response& response) { send(id, stream, response); };
        if (frame.type != static_cast<std::uint8_t>(ttrpc::FrameType::request)) return;  // nothing else comes from a client
        if (frame.oversized)
            return respond({ttrpc::Code::resource_exhausted, "message larger than the 4 MiB ttrpc allows", {}});
        if (frame.stream % 2 == 0) return respond({ttrpc::Code::invalid_argument, "stream id must be odd for client-initiated streams", {}});
        auto request = ttrpc::decode_request(frame.payload);
        if (!request) return respond({ttrpc::Code::invalid_argument, "unmarshal request: " + request.error().message(), {}});
        service_.call(*request, respond);
    }

    void send(std::uint64_t id, std::uint32_t stream, const ttrpc::Response& response) {
        auto found = connections_.find(id);
        if (found == connections_.end()) return;  // the caller is gone: nobody to answer
        found->second->out += ttrpc::encode_frame(stream, ttrpc::FrameType::response, ttrpc::encode_response(response));
        write(id);
    }

    void write(std::uint64_t id) {
        Connection& c = *connections_.at(id);
        while (!c.out.empty()) {
            ssize_t n = ::send(c.fd.get(), c.out.data(), c.out.size(), MSG_NOSIGNAL);
            if (n < 0 && errno == EINTR) continue;
            if (n < 0 && errno == EAGAIN) break;
            if (n < 0) {
                close(id);
                return;
            }
            c.out.erase(0, static_cast<std::size_t>(n));
        }
        bool want = !c.out.empty();
        if (want != c.writing) {
            loop_.modify(c.key, c.fd.get(), EPOLLIN | (want ? EPOLLOUT : 0u));
            c.writing = want;
        }
    }

    Loop& loop_;
    TaskService& service_;
    UniqueFd listener_;
    std::map<std::uint64_t, std::unique_ptr<Connection>> connections_;
    std::uint64_t next_id_ = 1;
};

Result<int> serve_until_shutdown(UniqueFd listener, const ShimArgs& args) {
    ::signal(SIGPIPE, SIG_IGN);
    Runtime runtime;
    runtime.root = TRY(state_root(args.ns));
    runtime.rootless = ::geteuid() != 0;
    ::mkdir("/run/containerd/husk", 0711);
    const char* ttrpc_address = std::getenv("TTRPC_ADDRESS");
    Publisher publisher(ttrpc_address ? ttrpc_address : "", args.ns);
    Loop loop = TRY(Loop::open());
    TaskService service(loop, runtime, publisher, args.ns);
    Server server(loop, service);
    TRY(server.listen(std::move(listener)));
    while (!service.finished()) {
        TRY(loop.run_once(publisher.pending() ? 1000 : -1));
        if (publisher.pending()) publisher.retry();
        // After a call that ran the container machinery (create, start, exec, delete), not after every wakeup.
        if (service.take_heavy_call()) release_idle_memory();
    }
    server.flush_all();
    return 0;
}

}  // namespace

int serve(UniqueFd listener, const ShimArgs& args, const std::string& socket_path) {
    auto status = serve_until_shutdown(std::move(listener), args);
    ::unlink(socket_path.c_str());
    return status ? *status : 1;
}

int shim_main(int argc, char** argv) {
    auto args = parse_shim_args(std::span<char* const>(argv, static_cast<std::size_t>(argc)));
    if (!args) {
        std::fprintf(stderr, "containerd-shim-husk-v2: %s\n", args.error().message().c_str());
        return 1;
    }
    if (args->version) {
        std::printf("containerd-shim-husk-v2 (husk)\n");
        return 0;
    }
    Result<void> done;
    switch (args->action) {
        case Action::start:
            done = start_action(*args, [&](UniqueFd listener, const std::string& socket_path) {
                return serve(std::move(listener), *args, socket_path);
            });
            break;
        case Action::remove: done = remove_action(*args); break;
        case Action::serve:
            std::fprintf(stderr, "containerd-shim-husk-v2: an action is needed (start, delete): containerd starts the shim\n");
            return 1;
    }
    if (!done) {
        std::fprintf(stderr, "containerd-shim-husk-v2: %s\n", done.error().message().c_str());
        return 1;
    }
    return 0;
}

}  // namespace husk::shim
