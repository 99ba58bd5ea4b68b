#include "monitor/output_pump.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "base/fs.hpp"

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

// The caller's pipe as deep as the pump's. Each time its reader empties it the monitor wakes once and splices
// what fits; with the kernel's default pipe (16 pages) that is a wake-up per 64 KiB, on top of the writer's and
// the reader's own, and the capped output ran at half the speed of the uncapped one. A pipe grows only from the
// default size: a size someone chose (F_SETPIPE_SZ) is left as it is. Best effort, as for the pump's pipes.
void deepen(int output) {
    struct stat st{};
    if (::fstat(output, &st) != 0 || !S_ISFIFO(st.st_mode)) return;
    long default_size = 16 * ::sysconf(_SC_PAGESIZE);
    if (::fcntl(output, F_GETPIPE_SZ) == default_size && default_size < pipe_size)
        (void)::fcntl(output, F_SETPIPE_SZ, pipe_size);
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
    streams_[0].out = OutputSink(std::move(stdout_out));
    streams_[1].in = std::move(pipes.stderr_read);
    streams_[1].out = OutputSink(std::move(stderr_out));
    // splice cannot be told not to wait for a terminal or a socket: those are copied through the bounded buffer.
    for (Stream& stream : streams_) {
        stream.copy = !stream.out.splice_safe();
        if (!stream.copy) deepen(stream.out.fd());
    }
}

OutputPump::OutputPump(PumpPipes pipes, std::unique_ptr<FramedOutput> output, std::uint64_t limit,
                       std::function<void()> on_exceeded)
    : epoll_(std::move(pipes.watch)), limit_(limit), on_exceeded_(std::move(on_exceeded)), json_(std::move(output)) {
    streams_[0].in = std::move(pipes.stdout_read);
    streams_[1].in = std::move(pipes.stderr_read);
    for (Stream& stream : streams_) stream.copy = true;  // every chunk is read, to be framed
}

void OutputPump::on_ready() { dispatch(0); }

void OutputPump::drain(std::chrono::milliseconds quiet) {
    while (flowing()) {
        bool waiting = streams_[0].waiting_out || streams_[1].waiting_out || parked_;
        epoll_event probe;
        // Bytes below the cap wait for the reader however slow it is, unless the caller asks husk to stop; an
        // idle open pipe does not hold us.
        int ready = ::epoll_wait(epoll_.get(), &probe, 1, waiting ? stop_check_ms : static_cast<int>(quiet.count()));
        if (ready == 0 && waiting && !asked_to_stop()) continue;
        if (ready == 0) break;
        if (ready < 0 && errno != EINTR) break;
        dispatch(0);
    }
    for (Stream& stream : streams_) {
        end_input(stream);
        end_output(stream);
    }
    if (json_) {
        (void)json_->flush();  // the carried tails end_input framed, if the output takes them now
        drop_json();
    }
}

void OutputPump::dispatch(int timeout_ms) {
    epoll_event events[4];
    int n = ::epoll_wait(epoll_.get(), events, 4, timeout_ms);
    for (int i = 0; i < n; ++i) {
        int fd = events[i].data.fd;
        if (json_ && parked_ && fd == json_->fd()) {
            unpark();
            for (Stream& stream : streams_) pump_json(stream);
            continue;
        }
        for (Stream& stream : streams_) {
            if (stream.in && fd == stream.in.get() && !stream.waiting_out) {
                pump(stream);
            } else if (stream.waiting_out && fd == stream.out.fd()) {
                resume_input(stream);
                pump(stream);
            }
        }
    }
}

void OutputPump::pump(Stream& stream) {
    if (json_) return pump_json(stream);
    for (;;) {
        Step step;
        if (stream.pending_size > 0) step = flush(stream);
        else if (!stream.in) return end_output(stream);
        else step = delivered_ < limit_ ? move_some(stream, limit_ - delivered_) : past_cap(stream);
        switch (step) {
            case Step::more: continue;
            case Step::empty: return;
            case Step::blocked: wait_for_output(stream); return;
            case Step::closed: end_input(stream); return;
            case Step::gone: end_input(stream); end_output(stream); return;
        }
    }
}

OutputPump::Step OutputPump::move_some(Stream& stream, std::uint64_t allowed) {
    std::size_t chunk = static_cast<std::size_t>(std::min<std::uint64_t>(allowed, max_chunk));
    if (stream.copy) return copy_some(stream, chunk);
    // Zero-copy for pipe and file outputs. SPLICE_F_NONBLOCK: a full output pipe says EAGAIN instead of
    // blocking the monitor.
    ssize_t n = ::splice(stream.in.get(), nullptr, stream.out.fd(), nullptr, chunk, SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
    if (n < 0 && errno == EINVAL) {  // an O_APPEND file: no splice into those
        stream.copy = true;
        return Step::more;
    }
    if (n < 0 && errno == EAGAIN) return available(stream.in.get()) > 0 ? Step::blocked : Step::empty;
    if (n < 0 && errno == EINTR) return Step::more;
    // EOF: the container closed this stream. An error: the output is gone (EPIPE), and closing the pipe lets
    // the container's next write fail the same way it would have without the pump.
    if (n == 0) return Step::closed;
    if (n < 0) return Step::gone;
    stream.bytes += static_cast<std::uint64_t>(n);
    delivered_ += static_cast<std::uint64_t>(n);
    return Step::more;
}

// One chunk from the pipe into the stream's buffer (counted against the cap now: it is on its way), then out.
OutputPump::Step OutputPump::copy_some(Stream& stream, std::size_t chunk) {
    ssize_t n = ::read(stream.in.get(), stream.pending, std::min(chunk, sizeof stream.pending));
    if (n < 0 && errno == EAGAIN) return Step::empty;
    if (n < 0 && errno == EINTR) return Step::more;
    if (n <= 0) return Step::closed;
    stream.pending_offset = 0;
    stream.pending_size = static_cast<std::size_t>(n);
    delivered_ += static_cast<std::uint64_t>(n);
    return flush(stream);
}

// What the output takes of the buffer now; the rest waits for EPOLLOUT (Step::blocked).
OutputPump::Step OutputPump::flush(Stream& stream) {
    while (stream.pending_offset < stream.pending_size) {
        ssize_t n = stream.out.write_some(stream.pending + stream.pending_offset,
                                          stream.pending_size - stream.pending_offset);
        if (n < 0) return Step::gone;
        if (n == 0) return Step::blocked;
        stream.pending_offset += static_cast<std::size_t>(n);
        stream.bytes += static_cast<std::uint64_t>(n);
    }
    stream.pending_offset = stream.pending_size = 0;
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
        // What is buffered is below the cap: it is still delivered (the drain waits for it).
        for (Stream& s : streams_) end_input(s);
    }
    return Step::closed;
}

// The output is full: wait for room on it, and leave the pipe alone meanwhile (out of the set: a pipe whose
// writers are gone reports EPOLLHUP whatever is asked, which would wake the loop for nothing until then).
void OutputPump::wait_for_output(Stream& stream) {
    if (!add(epoll_.get(), stream.out.fd(), EPOLLOUT)) {
        // An output epoll cannot watch (a regular file would not have been full): wait briefly instead.
        pollfd p{stream.out.fd(), POLLOUT, 0};
        ::poll(&p, 1, 100);
        return;
    }
    if (stream.in) ::epoll_ctl(epoll_.get(), EPOLL_CTL_DEL, stream.in.get(), nullptr);
    stream.waiting_out = true;
}

void OutputPump::resume_input(Stream& stream) {
    ::epoll_ctl(epoll_.get(), EPOLL_CTL_DEL, stream.out.fd(), nullptr);
    if (stream.in) (void)add(epoll_.get(), stream.in.get(), EPOLLIN);
    stream.waiting_out = false;
}

// No more input; what is buffered still goes out (end_output once it has). json: a character the stream's last
// read cut off is framed now (base64).
void OutputPump::end_input(Stream& stream) {
    if (stream.in && !stream.waiting_out) ::epoll_ctl(epoll_.get(), EPOLL_CTL_DEL, stream.in.get(), nullptr);
    if (stream.in && json_) json_->end(static_cast<int>(&stream - streams_));
    stream.in.reset();
    if (stream.pending_size == 0) end_output(stream);
}

void OutputPump::end_output(Stream& stream) {
    if (stream.waiting_out && stream.out) ::epoll_ctl(epoll_.get(), EPOLL_CTL_DEL, stream.out.fd(), nullptr);
    stream.waiting_out = false;
    stream.pending_offset = stream.pending_size = 0;
    stream.out.reset();
}

// json: lines go out whole and one at a time, so a line waiting for the output holds both streams (park); the
// chunk is read into the stream's buffer, framed at once and counted against the cap as in text mode.
void OutputPump::pump_json(Stream& stream) {
    for (;;) {
        if (!json_) return;
        if (json_->busy()) {
            switch (json_->flush()) {
                case FramedOutput::Flush::done: break;
                case FramedOutput::Flush::blocked: park(); return;
                case FramedOutput::Flush::gone: drop_json(); return;
            }
        }
        if (!stream.in) return;
        Step step = delivered_ < limit_ ? read_json(stream, limit_ - delivered_) : past_cap(stream);
        switch (step) {
            case Step::more: continue;
            case Step::closed: end_input(stream); continue;  // its carried tail, if any, goes out next
            default: return;  // empty
        }
    }
}

OutputPump::Step OutputPump::read_json(Stream& stream, std::uint64_t allowed) {
    std::size_t chunk = static_cast<std::size_t>(std::min<std::uint64_t>(allowed, sizeof stream.pending));
    ssize_t n = ::read(stream.in.get(), stream.pending, chunk);
    if (n < 0 && errno == EAGAIN) return Step::empty;
    if (n < 0 && errno == EINTR) return Step::more;
    if (n <= 0) return Step::closed;
    delivered_ += static_cast<std::uint64_t>(n);
    json_->chunk(static_cast<int>(&stream - streams_), std::string_view(stream.pending, static_cast<std::size_t>(n)));
    return Step::more;
}

// The output is full: watch it for room, and take both pipes out of the set meanwhile.
void OutputPump::park() {
    if (parked_) return;
    if (!add(epoll_.get(), json_->fd(), EPOLLOUT)) {
        pollfd p{json_->fd(), POLLOUT, 0};  // an output epoll cannot watch: wait briefly instead
        ::poll(&p, 1, 100);
        return;
    }
    for (Stream& stream : streams_) {
        if (stream.in && !stream.waiting_out) ::epoll_ctl(epoll_.get(), EPOLL_CTL_DEL, stream.in.get(), nullptr);
        stream.waiting_out = stream.in ? true : false;
    }
    parked_ = true;
}

void OutputPump::unpark() {
    ::epoll_ctl(epoll_.get(), EPOLL_CTL_DEL, json_->fd(), nullptr);
    for (Stream& stream : streams_) {
        if (stream.in && stream.waiting_out) (void)add(epoll_.get(), stream.in.get(), EPOLLIN);
        stream.waiting_out = false;
    }
    parked_ = false;
}

// The output is gone (its reader closed it): nothing more is read, so the container's next write fails as it
// would have without the pump. What was counted as delivered stays.
void OutputPump::drop_json() {
    if (parked_) unpark();
    std::uint64_t out = json_->delivered(0), err = json_->delivered(1);
    json_.reset();
    streams_[0].bytes = out;
    streams_[1].bytes = err;
    for (Stream& stream : streams_) end_input(stream);
}

}  // namespace husk::monitor
