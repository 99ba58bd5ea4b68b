// A terminal for the terminal tests: a pty the test holds the master of, whose slave is a command's stdin,
// stdout, stderr and controlling terminal (SpawnOptions::terminal), as a terminal emulator would run it.
#pragma once

#include <termios.h>

#include <string>

#include "harness.hpp"

namespace husk::test {

// Reads a pty master (or any fd) until `text` has arrived, every slave fd is closed (EIO), or the timeout.
std::string read_until(int fd, std::string& seen, const std::string& text, Ms timeout);
// Reads until every slave fd is closed (EIO) or the timeout passes.
std::string read_until_hangup(int master, Ms timeout);

class TestTerminal {
public:
    TestTerminal();  // a fresh pty, 24x80
    ~TestTerminal();
    TestTerminal(const TestTerminal&) = delete;
    TestTerminal& operator=(const TestTerminal&) = delete;

    int master() const { return master_; }
    // The slave for SpawnOptions::terminal; close_slave() once the command holds it, so that the master hangs
    // up when the command and everything it started are done.
    int slave() const { return slave_; }
    void close_slave();

    void set_size(unsigned short rows, unsigned short columns);
    termios mode() const;  // the slave's termios, read through the master
    void type(const std::string& keys);
    // Everything read so far, reading on until `text` is in it (true) or the timeout passes (false).
    bool wait_for(const std::string& text, Ms timeout = Ms(10000));
    // Everything read so far plus the rest, until the pty hangs up.
    std::string rest(Ms timeout = Ms(10000));
    const std::string& seen() const { return seen_; }

private:
    int master_ = -1, slave_ = -1;
    std::string seen_;
};

// The fields of two termios that raw mode changes, and the rest, compared (c_cc and the four flag words).
bool same_mode(const termios& a, const termios& b);

}  // namespace husk::test
