#include "base/unix_socket.hpp"

#include <sys/socket.h>
#include <sys/un.h>

#include <cerrno>

namespace husk {

Result<UniqueFd> connect_unix(const std::string& path, std::string_view what) {
    sockaddr_un address{};
    if (path.size() >= sizeof address.sun_path) return fail_sys(ENAMETOOLONG, what, path);
    address.sun_family = AF_UNIX;
    path.copy(address.sun_path, path.size());
    UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
    if (!fd) return fail_sys(errno, "socket");
    int rc;
    do rc = ::connect(fd.get(), reinterpret_cast<const sockaddr*>(&address), sizeof address);
    while (rc < 0 && errno == EINTR);
    if (rc < 0) return fail_sys(errno, "connect " + std::string(what), path);
    return fd;
}

}  // namespace husk
