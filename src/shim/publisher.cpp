#include "shim/publisher.hpp"

#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>

#include "base/fs.hpp"
#include "base/unix_socket.hpp"
#include "shim/paths.hpp"
#include "ttrpc/frame.hpp"

namespace husk::shim {
namespace {

constexpr int reply_timeout_ms = 5000;  // as containerd's own publisher waits

}  // namespace

Result<void> Publisher::connect() {
    if (address_.empty()) return fail_msg("no TTRPC_ADDRESS: containerd's event socket is unknown");
    fd_ = TRY(connect_unix(socket_path(address_), "containerd's event socket (TTRPC_ADDRESS)"));
    return {};
}

Result<void> Publisher::forward(const std::string& payload) {
    if (!fd_) TRY(connect());
    ttrpc::Request request;
    request.service = "containerd.services.events.ttrpc.v1.Events";
    request.method = "Forward";
    request.payload = payload;
    request.metadata.emplace_back("containerd-namespace-ttrpc", ns_);
    const std::uint32_t stream = stream_;
    stream_ += 2;  // client-initiated streams are odd
    auto sent = write_all(fd_.get(), ttrpc::encode_frame(stream, ttrpc::FrameType::request, ttrpc::encode_request(request)));
    if (!sent) {
        fd_.reset();
        return sent;
    }
    ttrpc::FrameReader reader;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(reply_timeout_ms);
    for (;;) {
        while (auto frame = reader.next()) {
            if (frame->stream != stream) continue;
            auto response = ttrpc::decode_response(frame->payload);
            if (!response) return std::unexpected(response.error());
            if (response->code != ttrpc::Code::ok) return fail_msg("containerd refused the event: " + response->message);
            return {};
        }
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        pollfd poll{fd_.get(), POLLIN, 0};
        int ready = left.count() > 0 ? ::poll(&poll, 1, static_cast<int>(left.count())) : 0;
        if (ready < 0 && errno == EINTR) continue;
        char chunk[4096];
        ssize_t n = ready > 0 ? ::read(fd_.get(), chunk, sizeof chunk) : -1;
        if (n <= 0) {
            fd_.reset();
            return fail_msg(ready == 0 ? "containerd did not answer an event in 5 s" : "containerd closed its event socket");
        }
        reader.feed(std::string_view(chunk, static_cast<std::size_t>(n)));
    }
}

bool Publisher::retry() {
    while (!queue_.empty()) {
        if (!forward(queue_.front())) {
            // One reconnect per event: containerd restarted, its socket is new.
            if (!forward(queue_.front())) return false;
        }
        queue_.pop_front();
    }
    return true;
}

void Publisher::publish(const ttrpc::Event& event) {
    if (queue_.size() >= 4096) queue_.pop_front();  // containerd gone for long: the oldest go first
    queue_.push_back(ttrpc::encode_forward_request(ttrpc::timestamp_now(), ns_, event));
    (void)retry();
}

}  // namespace husk::shim
