#include "monitor/output_sink.hpp"

#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cerrno>
#include <string>

namespace husk::monitor {

Result<UniqueFd> open_output(int fd, const char* what) {
    struct stat st{};
    if (::fstat(fd, &st) != 0) return fail_sys(errno, "fstat", what);
    if (S_ISFIFO(st.st_mode) || (S_ISCHR(st.st_mode) && ::isatty(fd))) {
        // open(2) of the magic link makes a new description of the same pipe or terminal (proc(5)); O_NOCTTY: a
        // terminal reopened must not become the monitor's controlling terminal.
        std::string link = "/proc/self/fd/" + std::to_string(fd);
        UniqueFd own(::open(link.c_str(), O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
        if (own) return own;
    }
    UniqueFd copy(::fcntl(fd, F_DUPFD_CLOEXEC, 3));
    if (!copy) return fail_sys(errno, "fcntl F_DUPFD_CLOEXEC", what);
    return copy;
}

bool asked_to_stop() {
    sigset_t pending;
    if (::sigpending(&pending) != 0) return false;
    for (int signal : {SIGHUP, SIGINT, SIGQUIT, SIGTERM})
        if (sigismember(&pending, signal)) return true;
    return false;
}

OutputSink::OutputSink(UniqueFd fd) : fd_(std::move(fd)) {
    struct stat st{};
    int flags = ::fcntl(fd_.get(), F_GETFL);
    bool fstat_ok = ::fstat(fd_.get(), &st) == 0;
    splice_safe_ = fstat_ok && (S_ISFIFO(st.st_mode) || S_ISREG(st.st_mode));
    if (flags >= 0 && (flags & O_NONBLOCK)) kind_ = Kind::nonblocking;
    else if (fstat_ok && S_ISSOCK(st.st_mode)) kind_ = Kind::socket;
    else if (fstat_ok && (S_ISREG(st.st_mode) || S_ISBLK(st.st_mode))) kind_ = Kind::file;
    else kind_ = Kind::guarded;
}

ssize_t OutputSink::write_some(const char* data, std::size_t size) {
    for (;;) {
        ssize_t n;
        switch (kind_) {
            case Kind::nonblocking:
            case Kind::file: n = ::write(fd_.get(), data, size); break;
            // MSG_NOSIGNAL: a peer that went away is EPIPE here, never SIGPIPE.
            case Kind::socket: n = ::send(fd_.get(), data, size, MSG_DONTWAIT | MSG_NOSIGNAL); break;
            case Kind::guarded: {
                // poll(2) POLLOUT on a pipe means room for PIPE_BUF bytes at least. Only another writer of the
                // same output filling it between the poll and the write can still block us: the one window left
                // when the output could not be reopened (documented in ARCHITECTURE.md, "The monitor").
                pollfd p{fd_.get(), POLLOUT, 0};
                int ready = ::poll(&p, 1, 0);
                if (ready < 0 && errno == EINTR) continue;
                if (ready == 0) return 0;
                if (ready > 0 && (p.revents & POLLOUT) == 0) {
                    errno = EPIPE;  // POLLERR/POLLHUP without room: the reader is gone
                    return -1;
                }
                n = ::write(fd_.get(), data, std::min<std::size_t>(size, PIPE_BUF));
                break;
            }
        }
        if (n >= 0) return n == 0 && size > 0 ? (errno = EIO, -1) : n;
        if (errno == EINTR) continue;
        if (errno == EAGAIN) return 0;
        return -1;
    }
}

}  // namespace husk::monitor
