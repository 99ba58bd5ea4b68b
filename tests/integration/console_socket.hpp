// A console socket like the containerd shim's pty.sock and conmon's conmon-term: receives the pty master a
// runtime sends (SCM_RIGHTS), and reads a pty master until the other side hangs up.
#pragma once

#include <string>

#include "harness.hpp"
#include "terminal_support.hpp"

namespace husk::test {

class ConsoleSocket {
public:
    explicit ConsoleSocket(std::string path);  // listens at path; closed and unlinked at scope exit
    ~ConsoleSocket();
    ConsoleSocket(const ConsoleSocket&) = delete;
    ConsoleSocket& operator=(const ConsoleSocket&) = delete;
    const std::string& path() const { return path_; }
    // Accepts one connection and returns the fd it carries, or -1.
    int receive_fd(Ms timeout);

private:
    std::string path_;
    int listener_ = -1;
};

// Reads the probe's report from a pty master (closing it) and CHECKs that 0-2 were that terminal.
void check_report_on_terminal(int master);

}  // namespace husk::test
