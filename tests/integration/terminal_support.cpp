#include "terminal_support.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace husk::test {

std::string read_until(int fd, std::string& seen, const std::string& text, Ms timeout) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    while (text.empty() || seen.find(text) == std::string::npos) {
        auto left = std::chrono::duration_cast<Ms>(deadline - std::chrono::steady_clock::now()).count();
        if (left <= 0) break;
        pollfd p{fd, POLLIN, 0};
        int ready = poll(&p, 1, static_cast<int>(left));
        if (ready < 0 && errno == EINTR) continue;
        if (ready <= 0) break;
        char buf[4096];
        ssize_t n = read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        seen.append(buf, static_cast<size_t>(n));
    }
    return seen;
}

std::string read_until_hangup(int master, Ms timeout) {
    std::string seen;
    return read_until(master, seen, "", timeout);
}

TestTerminal::TestTerminal() {
    master_ = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (master_ < 0 || grantpt(master_) != 0 || unlockpt(master_) != 0)
        throw std::runtime_error(std::string("posix_openpt: ") + std::strerror(errno));
    slave_ = ioctl(master_, TIOCGPTPEER, O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (slave_ < 0) throw std::runtime_error(std::string("TIOCGPTPEER: ") + std::strerror(errno));
    set_size(24, 80);
}

TestTerminal::~TestTerminal() {
    close_slave();
    close(master_);
}

void TestTerminal::close_slave() {
    if (slave_ >= 0) close(slave_);
    slave_ = -1;
}

void TestTerminal::set_size(unsigned short rows, unsigned short columns) {
    winsize size{};
    size.ws_row = rows;
    size.ws_col = columns;
    if (ioctl(master_, TIOCSWINSZ, &size) != 0) FAIL("TIOCSWINSZ: " << std::strerror(errno));
}

termios TestTerminal::mode() const {
    termios t{};
    if (tcgetattr(master_, &t) != 0) FAIL("tcgetattr: " << std::strerror(errno));
    return t;
}

void TestTerminal::type(const std::string& keys) {
    if (write(master_, keys.data(), keys.size()) != static_cast<ssize_t>(keys.size()))
        FAIL("typing into the terminal: " << std::strerror(errno));
}

bool TestTerminal::wait_for(const std::string& text, Ms timeout) {
    read_until(master_, seen_, text, timeout);
    return seen_.find(text) != std::string::npos;
}

std::string TestTerminal::rest(Ms timeout) { return read_until(master_, seen_, "", timeout); }

bool same_mode(const termios& a, const termios& b) {
    return a.c_iflag == b.c_iflag && a.c_oflag == b.c_oflag && a.c_cflag == b.c_cflag && a.c_lflag == b.c_lflag &&
           std::memcmp(a.c_cc, b.c_cc, sizeof a.c_cc) == 0;
}

}  // namespace husk::test
