// One sendmsg(2) of `data` with `fd` attached (SCM_RIGHTS; fd < 0: none), retried on EINTR, MSG_NOSIGNAL.
// Allocation-free: the container child uses it too (the sync socket).
#pragma once

#include <cstddef>

#include "husk/error.hpp"

namespace husk {

// The bytes sent (a stream socket may take fewer than `size`).
Result<std::size_t> send_with_fd(int socket, const void* data, std::size_t size, int fd) noexcept;

}  // namespace husk
