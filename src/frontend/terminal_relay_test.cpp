#include "frontend/terminal_relay.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <chrono>
#include <string>

#include "base/fs.hpp"

using namespace husk;
using namespace husk::frontend;

namespace {

struct Pty {
    UniqueFd master, slave;
};

Pty open_pty() {
    Pty pty;
    pty.master.reset(::posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC));
    REQUIRE(pty.master);
    REQUIRE(::unlockpt(pty.master.get()) == 0);
    pty.slave.reset(::ioctl(pty.master.get(), TIOCGPTPEER, O_RDWR | O_NOCTTY | O_CLOEXEC));
    REQUIRE(pty.slave);
    return pty;
}

// Runs the relay the way the monitor's loop does (its fd readable → on_ready) until `done` or 5 s.
template <typename Done>
void relay_until(TerminalRelay& relay, Done done) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (!done() && std::chrono::steady_clock::now() < deadline) {
        pollfd p{relay.fd(), POLLIN, 0};
        if (::poll(&p, 1, 50) == 1) relay.on_ready();
    }
}

// What `fd` (non-blocking) holds now.
std::string available(int fd) {
    std::string out;
    char buffer[1024];
    for (ssize_t n; (n = ::read(fd, buffer, sizeof buffer)) > 0;) out.append(buffer, static_cast<std::size_t>(n));
    return out;
}

}  // namespace

TEST_CASE("the terminal relay moves the caller's input into the pty and the pty's output to the caller",
          "[monitor][terminal]") {
    Pty pty = open_pty();
    int slave = pty.slave.get();
    ::fcntl(slave, F_SETFL, O_NONBLOCK);
    Pipe in = open_pipe().value(), out = open_pipe().value();
    ::fcntl(out.read_end.get(), F_SETFL, O_NONBLOCK);
    TerminalRelay relay = TerminalRelay::open(std::move(pty.master), {in.read_end.get(), out.write_end.get()}).value();

    REQUIRE(write_all(in.write_end.get(), "ping\n"));
    std::string typed;
    relay_until(relay, [&] { return (typed += available(slave)).find('\n') != std::string::npos; });
    CHECK(typed == "ping\n");

    REQUIRE(write_all(slave, "pong\n"));
    std::string shown;
    relay_until(relay, [&] { return (shown += available(out.read_end.get())).find("pong") != std::string::npos; });
    CHECK(shown == "ping\r\npong\r\n");  // the pty's echo of the input, then the output, both through ONLCR

    pty.slave.reset();
    relay.drain(std::chrono::milliseconds(100));
    CHECK(relay.hung_up());
}

TEST_CASE("the end of piped input reaches the pty as its EOF character", "[monitor][terminal]") {
    Pty pty = open_pty();
    Pipe in = open_pipe().value(), out = open_pipe().value();
    TerminalRelay relay = TerminalRelay::open(std::move(pty.master), {in.read_end.get(), out.write_end.get()}).value();
    REQUIRE(write_all(in.write_end.get(), "abc"));  // no newline: the first EOF ends the line, the second is EOF
    in.write_end.reset();
    ::fcntl(pty.slave.get(), F_SETFL, O_NONBLOCK);
    std::string line;
    bool eof = false;
    relay_until(relay, [&] {
        char buffer[64];
        ssize_t n = ::read(pty.slave.get(), buffer, sizeof buffer);
        if (n > 0) line.append(buffer, static_cast<std::size_t>(n));
        eof = n == 0;
        return eof;
    });
    CHECK(line == "abc");
    CHECK(eof);
}

TEST_CASE("raw mode lasts as long as its guard, and a pipe is left alone", "[monitor][terminal]") {
    Pty pty = open_pty();
    termios before{};
    REQUIRE(::tcgetattr(pty.slave.get(), &before) == 0);
    REQUIRE((before.c_lflag & ICANON) != 0);
    {
        RawMode raw = RawMode::enter(pty.slave.get()).value();
        CHECK(raw.active());
        termios during{};
        REQUIRE(::tcgetattr(pty.slave.get(), &during) == 0);
        CHECK((during.c_lflag & (ICANON | ECHO | ISIG)) == 0);
        RawMode moved = std::move(raw);  // the moved-from guard restores nothing
        CHECK_FALSE(raw.active());
    }
    termios after{};
    REQUIRE(::tcgetattr(pty.slave.get(), &after) == 0);
    CHECK(after.c_lflag == before.c_lflag);
    CHECK(after.c_iflag == before.c_iflag);
    CHECK(after.c_oflag == before.c_oflag);

    Pipe pipe = open_pipe().value();
    CHECK_FALSE(RawMode::enter(pipe.read_end.get()).value().active());
}

TEST_CASE("the caller's window size is copied onto the pty, a terminal nobody sized is not",
          "[monitor][terminal]") {
    Pty caller = open_pty(), container = open_pty();
    winsize size{};
    size.ws_row = 33;
    size.ws_col = 91;
    REQUIRE(::ioctl(caller.master.get(), TIOCSWINSZ, &size) == 0);
    REQUIRE(copy_window_size(caller.slave.get(), container.master.get()));
    winsize copied{};
    REQUIRE(::ioctl(container.slave.get(), TIOCGWINSZ, &copied) == 0);
    CHECK(copied.ws_row == 33);
    CHECK(copied.ws_col == 91);

    Pty unsized = open_pty();
    REQUIRE(copy_window_size(unsized.slave.get(), container.master.get()));
    REQUIRE(::ioctl(container.slave.get(), TIOCGWINSZ, &copied) == 0);
    CHECK(copied.ws_row == 33);
}
