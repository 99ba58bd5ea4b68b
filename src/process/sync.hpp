// The parent<->child sync protocol over a SOCK_SEQPACKET socketpair: small fixed-size typed messages, an
// optional fd (SCM_RIGHTS) and an optional payload datagram. Both sides are allocation-free.
#pragma once

#include <cstddef>
#include <cstdint>

#include "husk/error.hpp"
#include "husk/unique_fd.hpp"

namespace husk::process {

enum class SyncType : std::uint32_t {
    go = 1,            // parent → child: id maps written, start setting up
    hooks_request,     // child → parent: mounts are in place, run prestart + createRuntime hooks
    hooks_done,        // parent → child: hooks ran; payload = the state JSON for the child's own hooks
    console,           // child → parent: the pty master (fd attached)
    created,           // child → parent: setup complete, waiting for start
    error,             // child → parent: setup failed (error attached), the child exits
    exec_failed,       // child → monitor: execve failed after start
    seccomp_listener,  // child → parent: the seccomp notify fd (fd attached), for linux.seccomp.listenerPath
    posture,           // child → parent: payload = Posture, what is in force after the last security step
    bind_tree,         // child → parent: payload = uint32 index into mounts, the bind about to be attached;
                       // parent → child: its freshly cloned detached tree (fd attached)
    handoff,           // husk exec without root, first child → parent: payload = pid_t of the exec process it
                       // cloned as the parent's child, its pidfd attached (exec_spawn.cpp)
};

struct SyncMessage {
    SyncType type{};
    std::uint32_t payload_length = 0;  // bytes in the datagram that follows, if any
    Error error;
};

Result<void> send_message(int socket, SyncType type, const Error* error = nullptr, int fd = -1,
                          const char* payload = nullptr, std::size_t payload_length = 0) noexcept;

// The same message with write(2) only and no fd: what init sends after its seccomp filter is loaded. A
// profile that lets a workload do I/O allows write; sendmsg/sendto it may deny (runc and crun, too, only read
// and write their sync channel then). No MSG_NOSIGNAL: if the parent is gone, init dies of SIGPIPE, which ends
// it as surely as the exit the failed send would lead to.
Result<void> write_message(int socket, SyncType type, const Error* error = nullptr, const char* payload = nullptr,
                           std::size_t payload_length = 0) noexcept;

// Receives one message. A received fd is stored in *fd (when fd != nullptr); a payload is read into
// payload[0..capacity). EOF (the peer is gone) is reported as an EPIPE error.
Result<SyncMessage> receive_message(int socket, UniqueFd* fd = nullptr, char* payload = nullptr,
                                    std::size_t capacity = 0) noexcept;

// Child: asks the parent for the tree of bind mount `index` and waits for it (a mnt::TreeSource fetch; the
// context points at the sync socket).
Result<UniqueFd> request_bind_tree(const void* sync_socket, std::size_t index) noexcept;

}  // namespace husk::process
