// The output pump (run.husk.output-limit; docs/ARCHITECTURE.md, "The monitor"): pipes between the container and the
// stdout/stderr husk was given. The monitor moves the bytes as they come (splice where the kernel can, no buffering
// until exit, no reordering within a stream), counts both streams against one cap, delivers exactly up to the cap and
// reports the first byte past it. A slow reader slows the container down (the pipe fills), it never makes the monitor
// drop bytes, and never blocks the monitor's loop (monitor/output_sink.hpp).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string_view>

#include "husk/error.hpp"
#include <optional>

#include "husk/unique_fd.hpp"
#include "monitor/output_sink.hpp"

namespace husk::monitor {

// The pump's framed mode: both streams into one output (husk run's --output-format json: JSON lines,
// frontend/json_lines.hpp), a record at a time and never two interleaved. Records wait in the frame while the
// output is full; the pump reads nothing meanwhile (busy()), so the frame stays bounded and back-pressure reaches
// the container as in text mode.
class FramedOutput {
public:
    enum class Flush { done, blocked, gone };
    virtual ~FramedOutput() = default;
    // stream: 0 stdout, 1 stderr.
    virtual void chunk(int stream, std::string_view data) = 0;
    virtual void end(int stream) = 0;
    virtual bool busy() const = 0;
    // Writes what the output takes now.
    virtual Flush flush() = 0;
    virtual int fd() const = 0;
    // The program's bytes whose records were written whole.
    virtual std::uint64_t delivered(int stream) const = 0;
};

// Init writes into the write ends (they become its fds 1 and 2); the monitor reads the read ends. `watch` is
// the pump's epoll set, already watching both read ends.
struct PumpPipes {
    UniqueFd stdout_read, stdout_write, stderr_read, stderr_write;
    UniqueFd watch;
};

// Both pipes close-on-exec; the read ends non-blocking (the write ends stay blocking: the container's writes
// must behave as on any pipe). The read ends join the epoll set here, before anything can write: epoll lists
// ready fds in the order they became ready, which is the only order across the two pipes the kernel keeps.
// Added later (a monitor slow to start on a loaded machine), pipes that already hold data are listed in the
// order they were added, stdout first, whatever the container wrote first.
Result<PumpPipes> open_pump_pipes();

class OutputPump {
public:
    // `pipes`: the read ends and their epoll set (the write ends are init's). `stdout_out`/`stderr_out`: the
    // outputs the bytes go to (open_output of the stdio husk was given). `on_exceeded` runs once, when the container
    // has written a byte past `limit`: it records the cause and kills the container. The pump then delivers
    // nothing more and closes its pipes.
    OutputPump(PumpPipes pipes, UniqueFd stdout_out, UniqueFd stderr_out, std::uint64_t limit,
               std::function<void()> on_exceeded);
    // Framed: both streams into `output`; the cap counts the program's bytes as in text mode.
    OutputPump(PumpPipes pipes, std::unique_ptr<FramedOutput> output, std::uint64_t limit,
               std::function<void()> on_exceeded);

    // The pump's own epoll set (pipes, and outputs it waits on); the monitor's loop watches this one fd.
    int fd() const { return epoll_.get(); }
    // Moves what is ready now, without blocking on the pipes.
    void on_ready();
    // After init has ended: pumps until both streams reach EOF. While bytes wait for a slow reader it keeps
    // waiting (the reader going away ends it: EPIPE); when the pipes are empty but still open (a process
    // outside init's pid namespace holds them), it stops after `quiet` without data.
    void drain(std::chrono::milliseconds quiet);

    bool exceeded() const { return exceeded_; }
    std::uint64_t stdout_bytes() const { return json_ ? json_->delivered(0) : streams_[0].bytes; }
    std::uint64_t stderr_bytes() const { return json_ ? json_->delivered(1) : streams_[1].bytes; }

private:
    struct Stream {
        UniqueFd in;
        OutputSink out;
        bool copy = false;         // no splice into the output (a tty, a socket, O_APPEND): read + write
        bool waiting_out = false;  // the output is full: watching it for EPOLLOUT, the pipe out of the set
                                   // (json: the one output of both streams, see parked_)
        std::uint64_t bytes = 0;   // delivered
        // The copy's bound: one chunk read from the pipe, not taken by the output yet. The pipe is not read
        // again before it is gone, so back-pressure reaches the container as without the pump.
        char pending[16384];
        std::size_t pending_offset = 0, pending_size = 0;
    };
    enum class Step { more, empty, blocked, closed, gone };  // closed: the input ended; gone: the output

    void dispatch(int timeout_ms);
    void pump(Stream& stream);
    void pump_json(Stream& stream);
    Step read_json(Stream& stream, std::uint64_t allowed);
    void park();
    void unpark();
    void drop_json();
    Step move_some(Stream& stream, std::uint64_t allowed);
    Step copy_some(Stream& stream, std::size_t chunk);
    Step flush(Stream& stream);
    Step past_cap(Stream& stream);
    void wait_for_output(Stream& stream);
    void resume_input(Stream& stream);
    void end_input(Stream& stream);
    void end_output(Stream& stream);
    bool flowing() const {
        return streams_[0].in || streams_[1].in || streams_[0].out || streams_[1].out || (json_ && json_->busy());
    }

    UniqueFd epoll_;
    Stream streams_[2];
    std::uint64_t limit_;
    std::uint64_t delivered_ = 0;
    bool exceeded_ = false;
    std::function<void()> on_exceeded_;
    // Framed: one output for both streams. While a record waits for room on it, both pipes are out of the set.
    std::unique_ptr<FramedOutput> json_;
    bool parked_ = false;
};

}  // namespace husk::monitor
