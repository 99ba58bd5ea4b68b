// A task process's stdio as containerd names it (paths of FIFOs it reads and writes, `file://` paths, or
// nothing), turned into the process's fds 0-2 and the relays the shim runs for it:
// - stdout/stderr without a terminal: the process writes into containerd's FIFO itself (opened read-write, so
//   neither the open nor a write ever waits for, or fails without, a reader); nothing passes through the shim;
// - stdin: a pipe the shim feeds from the FIFO, so CloseIO and the FIFO's end close it (the process sees EOF);
// - a terminal: the pty master (husk keeps it) relayed to the stdout FIFO and from the stdin FIFO.
#pragma once

#include <array>
#include <memory>
#include <string>

#include "husk/error.hpp"
#include "husk/unique_fd.hpp"
#include "shim/loop.hpp"

namespace husk::shim {

// Copies from one fd to another as the loop says they are ready, through a 64 KiB buffer; at the source's end
// (EOF, EIO of a pty master, or close()) it closes its destination. Both fds are non-blocking.
class Relay {
public:
    static Result<std::unique_ptr<Relay>> open(Loop& loop, UniqueFd from, UniqueFd to);
    ~Relay();
    Relay(const Relay&) = delete;
    Relay& operator=(const Relay&) = delete;
    // Stop reading; what is buffered is still delivered, then the destination closes (CloseIO of stdin).
    void close_source();
    bool ended() const { return !to_; }

private:
    Relay(Loop& loop, UniqueFd from, UniqueFd to) : loop_(loop), from_(std::move(from)), to_(std::move(to)) {}
    void on_readable();
    void on_writable();
    void flush();
    void end();
    Loop& loop_;
    UniqueFd from_, to_;
    std::uint64_t from_key_ = 0, to_key_ = 0;
    std::string buffer_;
    bool source_done_ = false;
};

struct ProcessStdio {
    std::array<UniqueFd, 3> child;  // what the process gets as 0-2 (not used with a terminal: husk gives the pty)
    UniqueFd stdin_source;          // the stdin FIFO, read by the shim
    UniqueFd stdin_pipe;            // the pipe's write end the shim feeds (non-terminal)
    UniqueFd stdout_sink;           // the stdout FIFO, written by the shim (terminal)
};

// Opens what the paths name. Refused: a `binary://` logger (husk's shim starts no logging binary) and any
// other scheme.
Result<ProcessStdio> open_process_stdio(const std::string& stdin_path, const std::string& stdout_path,
                                        const std::string& stderr_path, bool terminal);

// The relays of a started process: stdin (pipe or pty master) and, with a terminal, the master's output. The
// master itself stays with the caller (ResizePty).
struct ProcessRelays {
    std::unique_ptr<Relay> stdin_relay, output_relay;
};
Result<ProcessRelays> start_relays(Loop& loop, ProcessStdio& stdio, int console_master);

// The caller's fds 0-2 become `child` for the life of this object (a spawn in between gives them to the new
// process), then /dev/null again: the serving shim's own stdio.
class StdioSwap {
public:
    explicit StdioSwap(const std::array<UniqueFd, 3>& child);
    ~StdioSwap();
    StdioSwap(const StdioSwap&) = delete;
    StdioSwap& operator=(const StdioSwap&) = delete;
};

}  // namespace husk::shim
