// Writing to the stdio husk was given (the output pump, the terminal relay): its reader may be gone. How the
// writes never wait for a slow one is monitor/output_sink.hpp.
#pragma once

#include <csignal>

namespace husk::monitor {

// A reader that went away is an EPIPE to handle, not a reason for the monitor to die. Restored afterwards
// (`husk run` runs poststop hooks later, which must not inherit SIG_IGN).
class IgnoredSigpipe {
public:
    IgnoredSigpipe() {
        struct sigaction ignore{};
        ignore.sa_handler = SIG_IGN;
        ::sigaction(SIGPIPE, &ignore, &previous_);
    }
    ~IgnoredSigpipe() { ::sigaction(SIGPIPE, &previous_, nullptr); }
    IgnoredSigpipe(const IgnoredSigpipe&) = delete;
    IgnoredSigpipe& operator=(const IgnoredSigpipe&) = delete;

private:
    struct sigaction previous_{};
};

}  // namespace husk::monitor
