#include "monitor/output_pump.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "base/fs.hpp"
#include "monitor/stdio_write.hpp"

namespace husk::monitor {
namespace {

constexpr std::size_t max_chunk = 1 << 20;
constexpr int pipe_size = 1 << 20;

Result<void> add(int epoll, int fd, std::uint32_t events) {
    epoll_event event{};
    event.events = events;
    event.data.fd = fd;
    if (::epoll_ctl(epoll, EPOLL_CTL_ADD, fd, &event) != 0) return fail_sys(errno, "epoll_ctl");
    return {};
}

std::size_t available(int pipe) {
    int bytes = 0;
    if (::ioctl(pipe, FIONREAD, &bytes) != 0) return 0;
    return static_cast<std::size_t>(std::max(bytes, 0));
}

}  // namespace

Result<PumpPipes> open_pump_pipes() {
    auto out = open_pipe();
    if (!out) return fail_sys(out.error().err, "pipe2", "stdout");
    PumpPipes pipes;
    pipes.stdout_read = std::move(out->read_end);
    pipes.stdout_write = std::move(out->write_end);
    auto err = open_pipe();
    if (!err) return fail_sys(err.error().err, "pipe2", "stderr");
    pipes.stderr_read = std::move(err->read_end);
    pipes.stderr_write = std::move(err->write_end);
    pipes.watch.reset(::epoll_create1(EPOLL_CLOEXEC));
    if (!pipes.watch) return fail_sys(errno, "epoll_create1", "output pipes");
    // O_NONBLOCK is a flag of the open file description: each pipe end has its own, so the container's
    // write ends stay blocking.
    for (int fd : {pipes.stdout_read.get(), pipes.stderr_read.get()}) {
        if (::fcntl(fd, F_SETFL, O_NONBLOCK) != 0) return fail_sys(errno, "fcntl O_NONBLOCK", "output pipe");
        // Bigger pipes mean fewer wakeups per MiB (the default holds 64 KiB). Best effort: the limit is
        // /proc/sys/fs/pipe-max-size and the user's pipe quota; the default size works, only slower.
        (void)::fcntl(fd, F_SETPIPE_SZ, pipe_size);
        TRY(add(pipes.watch.get(), fd, EPOLLIN));
    }
    return pipes;
}

OutputPump::OutputPump(PumpPipes pipes, UniqueFd stdout_out, UniqueFd stderr_out, std::uint64_t limit,
                       std::function<void()> on_exceeded)
    : epoll_(std::move(pipes.watch)), limit_(limit), on_exceeded_(std::move(on_exceeded)) {
    streams_[0].in = std::move(pipes.stdout_read);
    streams_[0].out = std::move(stdout_out);
    streams_[1].in = std::move(pipes.stderr_read);
    streams_[1].out = std::move(stderr_out);
}

void OutputPump::on_ready() { dispatch(0); }

void OutputPump::drain(std::chrono::milliseconds quiet) {
    while (flowing()) {
        bool waiting = streams_[0].waiting_out || streams_[1].waiting_out;
        epoll_event probe;
        // Bytes below the cap wait for the reader however slow it is; an idle open pipe does not hold us.
        int ready = ::epoll_wait(epoll_.get(), &probe, 1, waiting ? -1 : static_cast<int>(quiet.count()));
        if (ready == 0) break;
        if (ready < 0 && errno != EINTR) break;
        dispatch(0);
    }
    for (Stream& stream : streams_) close(stream);
}

void OutputPump::dispatch(int timeout_ms) {
    epoll_event events[4];
    int n = ::epoll_wait(epoll_.get(), events, 4, timeout_ms);
    for (int i = 0; i < n; ++i) {
        int fd = events[i].data.fd;
        for (Stream& stream : streams_) {
            if (stream.in && fd == stream.in.get() && !stream.waiting_out) {
                pump(stream);
            } else if (stream.waiting_out && fd == stream.out.get()) {
                resume_input(stream);
                pump(stream);
            }
        }
    }
}

void OutputPump::pump(Stream& stream) {
    while (stream.in) {
        Step step = delivered_ < limit_ ? move_some(stream, limit_ - delivered_) : past_cap(stream);
        switch (step) {
            case Step::more: continue;
            case Step::empty: return;
            case Step::blocked: wait_for_output(stream); return;
            case Step::closed: close(stream); return;
        }
    }
}

OutputPump::Step OutputPump::move_some(Stream& stream, std::uint64_t allowed) {
    std::size_t chunk = static_cast<std::size_t>(std::min<std::uint64_t>(allowed, max_chunk));
    ssize_t n;
    if (!stream.copy) {
        // Zero-copy for pipe, file and socket outputs. SPLICE_F_NONBLOCK: a full output pipe says EAGAIN
        // instead of blocking the monitor.
        n = ::splice(stream.in.get(), nullptr, stream.out.get(), nullptr, chunk, SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
        if (n < 0 && errno == EINVAL) {  // a tty, or an O_APPEND file: no splice into those
            stream.copy = true;
            return Step::more;
        }
        if (n < 0 && errno == EAGAIN) return available(stream.in.get()) > 0 ? Step::blocked : Step::empty;
    } else {
        static char buffer[16384];
        n = ::read(stream.in.get(), buffer, std::min(chunk, sizeof buffer));
        if (n < 0 && errno == EAGAIN) return Step::empty;
        if (n > 0 && !write_fully(stream.out.get(), buffer, static_cast<std::size_t>(n))) return Step::closed;
    }
    if (n < 0 && errno == EINTR) return Step::more;
    // EOF: the container closed this stream. An error: the output is gone (EPIPE), and closing the pipe lets
    // the container's next write fail the same way it would have without the pump.
    if (n <= 0) return Step::closed;
    stream.bytes += static_cast<std::uint64_t>(n);
    delivered_ += static_cast<std::uint64_t>(n);
    return Step::more;
}

// The cap is reached: one more byte in either pipe means the container wrote past it. Exactly at the cap
// and then EOF is within the limit.
OutputPump::Step OutputPump::past_cap(Stream& stream) {
    char byte;
    ssize_t n = ::read(stream.in.get(), &byte, 1);
    if (n < 0 && errno == EAGAIN) return Step::empty;
    if (n < 0 && errno == EINTR) return Step::more;
    if (n == 1 && !exceeded_) {
        exceeded_ = true;
        // Killed before the pipes close: a writer must die of the kill, not of an EPIPE it could handle.
        if (on_exceeded_) on_exceeded_();
        for (Stream& s : streams_) close(s);
    }
    return Step::closed;
}

void OutputPump::wait_for_output(Stream& stream) {
    epoll_event off{};
    off.data.fd = stream.in.get();
    if (!add(epoll_.get(), stream.out.get(), EPOLLOUT)) {
        // An output epoll cannot watch (a regular file would not have said EAGAIN): wait briefly instead.
        pollfd p{stream.out.get(), POLLOUT, 0};
        ::poll(&p, 1, 100);
        return;
    }
    ::epoll_ctl(epoll_.get(), EPOLL_CTL_MOD, stream.in.get(), &off);
    stream.waiting_out = true;
}

void OutputPump::resume_input(Stream& stream) {
    ::epoll_ctl(epoll_.get(), EPOLL_CTL_DEL, stream.out.get(), nullptr);
    epoll_event on{};
    on.events = EPOLLIN;
    on.data.fd = stream.in.get();
    ::epoll_ctl(epoll_.get(), EPOLL_CTL_MOD, stream.in.get(), &on);
    stream.waiting_out = false;
}

void OutputPump::close(Stream& stream) {
    if (stream.waiting_out) ::epoll_ctl(epoll_.get(), EPOLL_CTL_DEL, stream.out.get(), nullptr);
    if (stream.in) ::epoll_ctl(epoll_.get(), EPOLL_CTL_DEL, stream.in.get(), nullptr);
    stream.waiting_out = false;
    stream.in.reset();
    stream.out.reset();
}

}  // namespace husk::monitor
