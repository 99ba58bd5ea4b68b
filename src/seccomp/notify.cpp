#include "seccomp/notify.hpp"

#include <sys/socket.h>
#include <sys/un.h>

#include <cerrno>
#include <cstring>
#include <memory>

#include "base/json_reader.hpp"
#include "base/json_writer.hpp"
#include "base/send_fd.hpp"
#include "husk/unique_fd.hpp"

namespace husk::seccomp {
namespace {

bool is_json_object(std::string_view text) {
    auto tree = json::parse_tree(text);
    return tree && json::Node(tree->get(), "state").expect_object();
}

}  // namespace

Result<std::string> container_process_state_json(std::string_view oci_version, pid_t pid, std::string_view metadata,
                                                 std::string_view state_json) {
    if (!is_json_object(state_json)) return fail_msg("container process state: the state is not a JSON object");
    JsonWriter w;
    w.begin_object();
    w.key("ociVersion").string(oci_version);
    w.key("fds").begin_array().string("seccompFd").end_array();
    w.key("pid").integer(pid);
    if (!metadata.empty()) w.key("metadata").string(metadata);
    w.key("state").raw(state_json);
    w.end_object();
    return w.str();
}

Result<void> send_to_listener(const std::string& listener_path, int notify_fd, const std::string& process_state_json) {
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    if (listener_path.empty() || listener_path.size() >= sizeof address.sun_path)
        return fail_msg("linux.seccomp.listenerPath \"" + listener_path + "\": not a usable unix socket path (1-" +
                        std::to_string(sizeof address.sun_path - 1) + " bytes)");
    // At least one byte must go with SCM_RIGHTS on a stream socket, or the fd is not delivered.
    if (process_state_json.empty()) return fail_msg("container process state: empty message");
    std::memcpy(address.sun_path, listener_path.data(), listener_path.size());
    UniqueFd socket(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
    if (!socket) return fail_sys(errno, "socket", listener_path);
    int rc;
    do rc = ::connect(socket.get(), reinterpret_cast<const sockaddr*>(&address), sizeof address);
    while (rc < 0 && errno == EINTR);
    if (rc < 0) return fail_sys(errno, "connect", listener_path);
    std::string_view rest = process_state_json;
    auto first = send_with_fd(socket.get(), rest.data(), rest.size(), notify_fd);
    if (!first) return fail(first.error().context(listener_path));
    rest.remove_prefix(*first);
    while (!rest.empty()) {
        ssize_t n = ::send(socket.get(), rest.data(), rest.size(), MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return fail_sys(errno, "send", listener_path);
        rest.remove_prefix(static_cast<std::size_t>(n));
    }
    return {};  // closing the socket ends the one message of this connection
}

}  // namespace husk::seccomp
