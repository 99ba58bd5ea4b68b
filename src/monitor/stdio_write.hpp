// Writing to the stdio husk was given (the output pump, the terminal relay): its reader may be slow or gone.
#pragma once

#include <csignal>
#include <cstddef>

namespace husk::monitor {

// A blocking write of the whole buffer; an output someone made non-blocking is waited for with poll. False when
// the output failed (EPIPE: the reader is gone).
bool write_fully(int fd, const char* data, std::size_t size);

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
