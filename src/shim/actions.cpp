#include "shim/actions.hpp"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <csignal>
#include <string>

#include "base/fs.hpp"
#include "base/json_reader.hpp"
#include "base/unix_socket.hpp"
#include "husk/container.hpp"
#include "shim/paths.hpp"
#include "shim/rootfs.hpp"
#include "ttrpc/task_api.hpp"

namespace husk::shim {
namespace {

// The pod a task belongs to, when containerd's CRI plugin (or a user) groups tasks into one shim, as runc's
// shim reads them from config.json's annotations.
std::string task_group(const std::string& id) {
    auto text = read_file("config.json");
    if (!text) return id;
    auto tree = parse_json_tree(*text);
    if (!tree) return id;
    for (const char* key : {"io.kubernetes.cri.sandbox-id", "io.containerd.runc.v2.group"}) {
        JsonRef value = tree->get().get("annotations").get(key);
        if (value.is_string() && !value.text().empty()) return std::string(value.text());
    }
    return id;
}

sockaddr_un unix_address(const std::string& path) {
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    path.copy(addr.sun_path, sizeof addr.sun_path - 1);
    return addr;
}

bool answers(const std::string& path) { return connect_unix(path, "shim socket").has_value(); }

// Bound and listening; EADDRINUSE comes back as such for the caller to look at the shim behind it.
Result<UniqueFd> listen_at(const std::string& path) {
    if (path.size() >= sizeof(sockaddr_un::sun_path)) return fail_msg("socket path too long: " + path);
    UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
    if (!fd) return fail_sys(errno, "socket");
    sockaddr_un addr = unix_address(path);
    if (::bind(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) return fail_sys(errno, "bind", path);
    if (::chmod(path.c_str(), 0600) != 0 || ::listen(fd.get(), 64) != 0) {
        int err = errno;
        ::unlink(path.c_str());
        return fail_sys(err, "listen", path);
    }
    return fd;
}

Result<void> write_address(const std::string& address) {
    auto cwd = TRY(open_fd(".", O_RDONLY | O_DIRECTORY));
    return write_file_atomic(cwd.get(), "address", address, 0600);
}

}  // namespace

Result<void> start_action(const ShimArgs& args, const Serve& serve) {
    // The runtime options containerd hands over on stdin (an Any): read so its writer is never blocked; the
    // shim takes no options (docs/clients.md).
    (void)read_fd(0, 1 << 20);
    const std::string address = socket_address(args.address, args.ns, task_group(args.id));
    const std::string path = socket_path(address);
    ::mkdir("/run/containerd", 0711);
    if (::mkdir("/run/containerd/s", 0700) != 0 && errno != EEXIST) return fail_sys(errno, "mkdir", "/run/containerd/s");
    auto listener = listen_at(path);
    if (!listener && listener.error().err == EADDRINUSE) {
        if (answers(path)) {  // the group's shim runs: it serves this task too
            TRY(write_address(address));
            TRY(write_all(1, address));
            return {};
        }
        ::unlink(path.c_str());  // a socket left by a shim that died
        listener = listen_at(path);
    }
    if (!listener) return std::unexpected(listener.error());
    if (auto written = write_address(address); !written) {
        ::unlink(path.c_str());
        return written;
    }
    pid_t child = ::fork();
    if (child < 0) {
        int err = errno;
        ::unlink(path.c_str());
        return fail_sys(err, "fork");
    }
    if (child == 0) {
        // containerd reads start's output until every holder of its pipe closes it: the serving shim keeps
        // nothing of start's stdio, and leaves containerd's session and process group.
        ::setsid();
        if (auto null = open_fd("/dev/null", O_RDWR))
            for (int fd = 0; fd < 3; ++fd) ::dup2(null->get(), fd);
        ::_exit(serve(std::move(*listener), path));
    }
    return write_all(1, address);
}

Result<void> remove_action(const ShimArgs& args) {
    Runtime runtime;
    runtime.root = TRY(state_root(args.ns));
    runtime.rootless = ::geteuid() != 0;
    std::string bundle = args.bundle;
    if (bundle.empty()) {
        char cwd[PATH_MAX];
        if (!::getcwd(cwd, sizeof cwd)) return fail_sys(errno, "getcwd");
        bundle = cwd;
    }
    ttrpc::DeleteResponse response;
    response.exit_status = 128 + SIGKILL;  // what containerd reports for a task its shim lost, as runc's shim
    response.exited_at = ttrpc::timestamp_now();
    auto id = ContainerId::parse(args.id);
    if (id) {
        // Init's pid as the state tells it while the container still runs (a stopped one reports none).
        if (auto state = container_state_json(runtime, *id)) {
            if (auto tree = parse_json_tree(*state)) {
                if (auto pid = json::Node(tree->get().get("pid"), "pid").as<std::uint32_t>()) response.pid = *pid;
            }
        }
        (void)delete_container(runtime, *id, true);
    }
    (void)unmount_rootfs(bundle);
    // The socket of a shim that died stays behind; one that no shim answers any more goes (a live shim of the
    // task's pod keeps its own).
    const std::string path = socket_path(socket_address(args.address, args.ns, task_group(args.id)));
    if (!answers(path)) ::unlink(path.c_str());
    return write_all(1, ttrpc::encode(response));
}

}  // namespace husk::shim
