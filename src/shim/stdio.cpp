#include "shim/stdio.hpp"

#include <fcntl.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <cerrno>

#include "base/fs.hpp"

namespace husk::shim {
namespace {

constexpr std::size_t relay_buffer = 64 * 1024;

Result<void> set_nonblocking(int fd) {
    int flags = ::fcntl(fd, F_GETFL);
    if (flags < 0 || ::fcntl(fd, F_SETFL, flags | O_NONBLOCK) != 0) return fail_sys(errno, "fcntl O_NONBLOCK");
    return {};
}

// containerd's stdio names: a FIFO path (ctr, the CRI plugin), "file:///path" (a log file), or empty.
Result<std::string> local_path(const std::string& name, const char* stream) {
    if (name.starts_with("file://")) return name.substr(7);
    if (name.find("://") != std::string::npos)
        return fail_msg(std::string(stream) + " " + name + ": only FIFO and file:// paths are supported by husk's shim");
    return name;
}

// An output the process or the shim writes: a FIFO opened read-write (no reader needed, never EPIPE), a
// file:// path appended to, /dev/null for nothing.
Result<UniqueFd> open_output(const std::string& name, const char* stream) {
    if (name.empty()) return open_fd("/dev/null", O_WRONLY | O_CLOEXEC);
    bool file = name.starts_with("file://");
    std::string path = TRY(local_path(name, stream));
    if (file) return open_fd(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0640);
    return open_fd(path, O_RDWR | O_CLOEXEC | O_NONBLOCK);
}

}  // namespace

Result<std::unique_ptr<Relay>> Relay::open(Loop& loop, UniqueFd from, UniqueFd to) {
    TRY(set_nonblocking(from.get()));
    TRY(set_nonblocking(to.get()));
    std::unique_ptr<Relay> relay(new Relay(loop, std::move(from), std::move(to)));
    Relay* self = relay.get();
    relay->from_key_ = TRY(loop.watch(relay->from_.get(), EPOLLIN, [self](std::uint32_t) { self->on_readable(); }));
    return relay;
}

Relay::~Relay() {
    if (from_key_) loop_.unwatch(from_key_, from_.get());
    if (to_key_) loop_.unwatch(to_key_, to_.get());
}

void Relay::close_source() {
    if (source_done_) return;
    source_done_ = true;
    if (from_key_) loop_.unwatch(from_key_, from_.get());
    from_key_ = 0;
    from_.reset();
    if (buffer_.empty()) end();
}

void Relay::end() {
    if (to_key_) loop_.unwatch(to_key_, to_.get());
    to_key_ = 0;
    to_.reset();
}

void Relay::on_readable() {
    if (!buffer_.empty() || !to_) return;
    char chunk[relay_buffer];
    ssize_t n = ::read(from_.get(), chunk, sizeof chunk);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
    if (n <= 0) {  // EOF; EIO: a pty master whose every slave fd is closed
        close_source();
        return;
    }
    buffer_.assign(chunk, static_cast<std::size_t>(n));
    flush();
}

void Relay::flush() {
    while (!buffer_.empty()) {
        ssize_t n = ::write(to_.get(), buffer_.data(), buffer_.size());
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && errno == EAGAIN) break;
        if (n < 0) {  // the destination is gone (a pty whose process ended): nothing more can be delivered
            buffer_.clear();
            close_source();
            end();
            return;
        }
        buffer_.erase(0, static_cast<std::size_t>(n));
    }
    if (!buffer_.empty()) {
        // Wait for room: stop reading until the destination drains.
        if (from_key_) loop_.modify(from_key_, from_.get(), 0);
        if (!to_key_) {
            auto key = loop_.watch(to_.get(), EPOLLOUT, [this](std::uint32_t) { on_writable(); });
            if (!key) {
                buffer_.clear();
                end();
                return;
            }
            to_key_ = *key;
        }
        return;
    }
    if (to_key_) {
        loop_.unwatch(to_key_, to_.get());
        to_key_ = 0;
    }
    if (source_done_) end();
    else if (from_key_) loop_.modify(from_key_, from_.get(), EPOLLIN);
}

void Relay::on_writable() { flush(); }

Result<ProcessStdio> open_process_stdio(const std::string& stdin_path, const std::string& stdout_path,
                                        const std::string& stderr_path, bool terminal) {
    ProcessStdio stdio;
    if (!stdin_path.empty()) {
        std::string path = TRY(local_path(stdin_path, "stdin"));
        // Opened without waiting for containerd's writer; epoll reports nothing until one has written or gone.
        stdio.stdin_source = TRY(open_fd(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK));
    }
    if (terminal) {
        stdio.stdout_sink = TRY(open_output(stdout_path, "stdout"));
        return stdio;
    }
    if (stdio.stdin_source) {
        Pipe pipe = TRY(open_pipe());
        stdio.child[0] = std::move(pipe.read_end);
        stdio.stdin_pipe = std::move(pipe.write_end);
    } else {
        stdio.child[0] = TRY(open_fd("/dev/null", O_RDONLY | O_CLOEXEC));
    }
    stdio.child[1] = TRY(open_output(stdout_path, "stdout"));
    if (!stderr_path.empty() && stderr_path == stdout_path) {
        int copy = ::fcntl(stdio.child[1].get(), F_DUPFD_CLOEXEC, 3);
        if (copy < 0) return fail_sys(errno, "dup");
        stdio.child[2] = UniqueFd(copy);
    } else {
        stdio.child[2] = TRY(open_output(stderr_path, "stderr"));
    }
    // The process's own ends block as a pipe's and a FIFO's normally do.
    for (auto& fd : stdio.child) {
        int flags = ::fcntl(fd.get(), F_GETFL);
        if (flags >= 0) ::fcntl(fd.get(), F_SETFL, flags & ~O_NONBLOCK);
    }
    return stdio;
}

Result<ProcessRelays> start_relays(Loop& loop, ProcessStdio& stdio, int console_master) {
    ProcessRelays relays;
    if (console_master >= 0) {
        auto dup_master = [&]() -> Result<UniqueFd> {
            int fd = ::fcntl(console_master, F_DUPFD_CLOEXEC, 3);
            if (fd < 0) return fail_sys(errno, "dup pty master");
            return UniqueFd(fd);
        };
        if (stdio.stdin_source) relays.stdin_relay = TRY(Relay::open(loop, std::move(stdio.stdin_source), TRY(dup_master())));
        if (stdio.stdout_sink) relays.output_relay = TRY(Relay::open(loop, TRY(dup_master()), std::move(stdio.stdout_sink)));
        return relays;
    }
    if (stdio.stdin_source) relays.stdin_relay = TRY(Relay::open(loop, std::move(stdio.stdin_source), std::move(stdio.stdin_pipe)));
    return relays;
}

StdioSwap::StdioSwap(const std::array<UniqueFd, 3>& child) {
    for (int fd = 0; fd < 3; ++fd)
        if (child[fd]) ::dup2(child[fd].get(), fd);
}

StdioSwap::~StdioSwap() {
    int null = ::open("/dev/null", O_RDWR | O_CLOEXEC);
    for (int fd = 0; fd < 3 && null >= 0; ++fd) ::dup2(null, fd);
    if (null >= 0) ::close(null);
}

}  // namespace husk::shim
