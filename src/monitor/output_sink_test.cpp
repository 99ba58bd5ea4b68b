#include "monitor/output_sink.hpp"

#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <termios.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <string>

#include "base/fs.hpp"

using namespace husk;
using namespace husk::monitor;

namespace {

bool nonblocking(int fd) { return (::fcntl(fd, F_GETFL) & O_NONBLOCK) != 0; }

// Writes until the sink says full; the count it took. A blocking write would hang the test instead.
std::size_t fill(OutputSink& sink) {
    static const std::string chunk(4096, 'x');
    std::size_t total = 0;
    for (int i = 0; i < 100000; ++i) {
        ssize_t n = sink.write_some(chunk.data(), chunk.size());
        REQUIRE(n >= 0);
        if (n == 0) return total;
        total += static_cast<std::size_t>(n);
    }
    FAIL("the output never filled");
    return total;
}

}  // namespace

TEST_CASE("a full pipe nobody reads says full, and the caller's description stays blocking", "[monitor][output]") {
    auto pipe = open_pipe();
    REQUIRE(pipe);
    REQUIRE(::fcntl(pipe->write_end.get(), F_SETPIPE_SZ, 4096) == 4096);
    auto own = open_output(pipe->write_end.get(), "test pipe");
    REQUIRE(own);
    OutputSink sink(std::move(*own));
    CHECK(sink.kind() == OutputSink::Kind::nonblocking);
    CHECK(sink.splice_safe());
    CHECK(fill(sink) == 4096);
    CHECK_FALSE(nonblocking(pipe->write_end.get()));  // O_NONBLOCK is on our own description only
}

TEST_CASE("a terminal stopped by XOFF says full instead of blocking", "[monitor][output]") {
    UniqueFd master(::posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC));
    REQUIRE(master);
    REQUIRE(::unlockpt(master.get()) == 0);
    UniqueFd slave(::ioctl(master.get(), TIOCGPTPEER, O_RDWR | O_NOCTTY | O_CLOEXEC));
    REQUIRE(slave);
    REQUIRE(::tcflow(slave.get(), TCOOFF) == 0);
    auto own = open_output(slave.get(), "test terminal");
    REQUIRE(own);
    OutputSink sink(std::move(*own));
    CHECK(sink.kind() == OutputSink::Kind::nonblocking);
    CHECK_FALSE(sink.splice_safe());
    CHECK(fill(sink) == 0);
    CHECK_FALSE(nonblocking(slave.get()));
}

TEST_CASE("a socket nobody reads says full, its description untouched", "[monitor][output]") {
    int fds[2];
    REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) == 0);
    UniqueFd reader(fds[0]), writer(fds[1]);
    auto own = open_output(writer.get(), "test socket");
    REQUIRE(own);
    OutputSink sink(std::move(*own));
    CHECK(sink.kind() == OutputSink::Kind::socket);
    CHECK_FALSE(sink.splice_safe());  // splice would wait for the reader
    CHECK(fill(sink) > 0);
    CHECK_FALSE(nonblocking(writer.get()));
    reader.reset();
    CHECK(sink.write_some("x", 1) == -1);  // EPIPE, and no SIGPIPE (MSG_NOSIGNAL)
    CHECK(errno == EPIPE);
}

TEST_CASE("a regular file is written as it is, without a reader to wait for", "[monitor][output]") {
    char path[] = "/tmp/husk-sink-XXXXXX";
    UniqueFd file(::mkstemp(path));
    REQUIRE(file);
    ::unlink(path);
    auto own = open_output(file.get(), "test file");
    REQUIRE(own);
    OutputSink sink(std::move(*own));
    CHECK(sink.kind() == OutputSink::Kind::file);
    CHECK(sink.splice_safe());
    CHECK(sink.write_some("abc", 3) == 3);
    CHECK(::lseek(file.get(), 0, SEEK_CUR) == 3);  // a dup: the caller's offset moved with ours
}
