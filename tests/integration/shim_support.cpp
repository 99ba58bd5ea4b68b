#include "shim_support.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <map>

#include "ttrpc/protobuf.hpp"

namespace husk::test {
namespace {

using Clock = std::chrono::steady_clock;

sockaddr_un unix_address(const std::string& path) {
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    path.copy(addr.sun_path, sizeof addr.sun_path - 1);
    return addr;
}

int listen_at(const std::string& path) {
    ::unlink(path.c_str());
    int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un addr = unix_address(path);
    REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
    REQUIRE(::listen(fd, 16) == 0);
    return fd;
}

// The topic of a ForwardRequest: envelope (1) → topic (3).
std::string forwarded_topic(std::string_view payload) {
    ttrpc::ProtoReader request(payload);
    while (auto field = request.next()) {
        if (!*field) break;
        if ((*field)->number != 1) continue;
        ttrpc::ProtoReader envelope((*field)->bytes);
        while (auto inner = envelope.next()) {
            if (!*inner) break;
            if ((*inner)->number == 3) return std::string((*inner)->bytes);
        }
    }
    return "(no topic)";
}

bool send_all(int fd, std::string_view bytes) {
    while (!bytes.empty()) {
        ssize_t n = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        bytes.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
}

}  // namespace

EventSink::EventSink(std::string path) : path_(std::move(path)) { restart(); }

EventSink::~EventSink() { stop(); }

void EventSink::restart() {
    stop();
    listener_ = listen_at(path_);
    stopping_ = false;
    thread_ = std::thread([this] { serve(); });
}

void EventSink::stop() {
    if (!thread_.joinable()) return;
    stopping_ = true;
    thread_.join();
    ::close(listener_);
    listener_ = -1;
    ::unlink(path_.c_str());
}

void EventSink::serve() {
    std::map<int, ttrpc::FrameReader> connections;
    while (!stopping_) {
        std::vector<pollfd> fds{{listener_, POLLIN, 0}};
        for (auto& [fd, reader] : connections) fds.push_back({fd, POLLIN, 0});
        if (::poll(fds.data(), fds.size(), 50) <= 0) continue;
        if (fds[0].revents & POLLIN) {
            int fd = ::accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
            if (fd >= 0) connections.emplace(fd, ttrpc::FrameReader{});
        }
        for (std::size_t i = 1; i < fds.size(); ++i) {
            if (!fds[i].revents) continue;
            int fd = fds[i].fd;
            char chunk[65536];
            ssize_t n = ::read(fd, chunk, sizeof chunk);
            if (n <= 0) {
                ::close(fd);
                connections.erase(fd);
                continue;
            }
            auto& reader = connections[fd];
            reader.feed(std::string_view(chunk, static_cast<std::size_t>(n)));
            while (auto frame = reader.next()) {
                auto request = ttrpc::decode_request(frame->payload);
                if (request && request->method == "Forward") {
                    std::lock_guard lock(mutex_);
                    topics_.push_back(forwarded_topic(request->payload));
                }
                send_all(fd, ttrpc::encode_frame(frame->stream, ttrpc::FrameType::response, ttrpc::encode_response({})));
            }
        }
    }
    for (auto& [fd, reader] : connections) ::close(fd);
}

std::vector<std::string> EventSink::topics() const {
    std::lock_guard lock(mutex_);
    return topics_;
}

bool EventSink::wait_for(const std::string& topic, Ms timeout, std::size_t count) const {
    auto deadline = Clock::now() + timeout;
    for (;;) {
        std::size_t seen = 0;
        for (const auto& t : topics()) seen += t == topic;
        if (seen >= count) return true;
        if (Clock::now() > deadline) return false;
        ::usleep(20000);
    }
}

ShimUnderTest::ShimUnderTest(Sandbox& sandbox, const Bundle& bundle, std::string id)
    : sandbox_(sandbox), bundle_dir_(bundle.dir), id_(std::move(id)), ns_("t-" + id_),
      root_("/run/containerd/husk/" + ns_), shim_binary_(sandbox.dir() + "/containerd-shim-husk-v2"),
      events_(sandbox.dir() + "/events.sock") {
    bundle.write();
    ::symlink(paths().husk.c_str(), shim_binary_.c_str());
    SpawnOptions options;
    options.cwd = bundle_dir_;
    options.env = {"TTRPC_ADDRESS=" + events_.path()};
    Output started = sandbox_.command({shim_binary_, "-namespace", ns_, "-address", sandbox.dir() + "/containerd.sock",
                                       "-publish-binary", "/bin/false", "-id", id_, "start"},
                                      options);
    INFO(started.describe());
    REQUIRE(started.exit_code == 0);
    address_ = started.out;
    REQUIRE(address_.starts_with("unix:///run/containerd/s/husk-"));
    CHECK(read_file(bundle_dir_ + "/address") == address_);
    sandbox_.track_pid(shim_pid());
}

ShimUnderTest::~ShimUnderTest() {
    (void)remove_action();
    ::rmdir(root_.c_str());
}

int ShimUnderTest::connect() const {
    int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un addr = unix_address(address_.substr(std::string_view("unix://").size()));
    if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
        ::close(fd);
        return -1;
    }
    return fd;
}

std::vector<ttrpc::Frame> ShimUnderTest::exchange(const std::string& bytes, std::size_t frames, Ms timeout) {
    std::vector<ttrpc::Frame> out;
    int fd = connect();
    if (fd < 0) return out;
    send_all(fd, bytes);
    ttrpc::FrameReader reader;
    auto deadline = Clock::now() + timeout;
    while (out.size() < frames) {
        while (auto frame = reader.next()) out.push_back(std::move(*frame));
        if (out.size() >= frames) break;
        auto left = std::chrono::duration_cast<Ms>(deadline - Clock::now()).count();
        pollfd poll{fd, POLLIN, 0};
        if (left <= 0 || ::poll(&poll, 1, static_cast<int>(left)) <= 0) break;
        char chunk[65536];
        ssize_t n = ::read(fd, chunk, sizeof chunk);
        if (n <= 0) break;
        reader.feed(std::string_view(chunk, static_cast<std::size_t>(n)));
    }
    ::close(fd);
    return out;
}

ttrpc::Response ShimUnderTest::call(const std::string& method, const std::string& payload, Ms timeout) {
    ttrpc::Request request;
    request.service = "containerd.task.v2.Task";
    request.method = method;
    request.payload = payload;
    auto frames = exchange(ttrpc::encode_frame(1, ttrpc::FrameType::request, ttrpc::encode_request(request)), 1, timeout);
    INFO("call " << method);
    REQUIRE(frames.size() == 1);
    auto response = ttrpc::decode_response(frames[0].payload);
    REQUIRE(response);
    return *response;
}

pid_t ShimUnderTest::shim_pid() {
    auto response = call("Connect", id_request(id_));
    REQUIRE(response.code == ttrpc::Code::ok);
    ttrpc::ProtoReader reader(response.payload);
    while (auto field = reader.next()) {
        if (!*field) break;
        if ((*field)->number == 1) return static_cast<pid_t>((*field)->value);
    }
    FAIL("Connect gave no shim_pid");
    return -1;
}

Output ShimUnderTest::remove_action() {
    SpawnOptions options;
    options.cwd = bundle_dir_;
    return sandbox_.command({shim_binary_, "-namespace", ns_, "-address", sandbox_.dir() + "/containerd.sock",
                             "-publish-binary", "/bin/false", "-id", id_, "-bundle", bundle_dir_, "delete"},
                            options);
}

std::string ShimUnderTest::create_request(const std::string& stdout_path, const std::string& stdin_path, bool terminal) const {
    ttrpc::ProtoWriter w;
    w.string(1, id_);
    w.string(2, bundle_dir_);
    w.boolean(4, terminal);
    w.string(5, stdin_path);
    w.string(6, stdout_path);
    w.string(7, stdout_path);
    return w.take();
}

std::string ShimUnderTest::create_request_with_rootfs(const std::string& source) const {
    ttrpc::ProtoWriter mount;
    mount.string(1, "bind");
    mount.string(2, source);
    mount.string_always(4, "rbind");
    mount.string_always(4, "rw");
    ttrpc::ProtoWriter w;
    w.string(1, id_);
    w.string(2, bundle_dir_);
    w.message(3, mount.data());
    return w.take();
}

std::string ShimUnderTest::id_request(const std::string& id, const std::string& exec_id) {
    ttrpc::ProtoWriter w;
    w.string(1, id);
    w.string(2, exec_id);
    return w.take();
}

FifoReader::FifoReader(std::string path) : path_(std::move(path)) {
    REQUIRE(::mkfifo(path_.c_str(), 0600) == 0);
    fd_ = ::open(path_.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    REQUIRE(fd_ >= 0);
}

FifoReader::~FifoReader() { ::close(fd_); }

std::string FifoReader::read_all(Ms timeout) {
    std::string out;
    auto deadline = Clock::now() + timeout;
    for (;;) {
        auto left = std::chrono::duration_cast<Ms>(deadline - Clock::now()).count();
        pollfd poll{fd_, POLLIN, 0};
        if (left <= 0 || ::poll(&poll, 1, static_cast<int>(left)) <= 0) return out;
        char chunk[4096];
        ssize_t n = ::read(fd_, chunk, sizeof chunk);
        if (n > 0) out.append(chunk, static_cast<std::size_t>(n));
        else if (n == 0) return out;  // every writer gone
    }
}

FifoWriter::FifoWriter(std::string path) : path_(std::move(path)) { REQUIRE(::mkfifo(path_.c_str(), 0600) == 0); }

FifoWriter::~FifoWriter() { close(); }

void FifoWriter::write(const std::string& data) {
    if (fd_ < 0) fd_ = ::open(path_.c_str(), O_WRONLY | O_CLOEXEC);
    REQUIRE(fd_ >= 0);
    REQUIRE(::write(fd_, data.data(), data.size()) == static_cast<ssize_t>(data.size()));
}

void FifoWriter::close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
}

}  // namespace husk::test
