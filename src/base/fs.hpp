// File helpers for the parent side: whole-file reads, atomic replacement, opening into a UniqueFd.
#pragma once

#include <string>
#include <string_view>

#include "husk/error.hpp"
#include "husk/unique_fd.hpp"

namespace husk {

// open(2)/openat(2) with O_CLOEXEC always added.
Result<UniqueFd> open_fd(const std::string& path, int flags, mode_t mode = 0);
Result<UniqueFd> open_fd_at(int dirfd, const std::string& path, int flags, mode_t mode = 0);

Result<std::string> read_file(const std::string& path);
Result<std::string> read_file_at(int dirfd, const std::string& name);
Result<std::string> read_fd(int fd);

// Writes content with one write(2) to an existing file (procfs, cgroupfs): no create, no truncate.
Result<void> write_existing_file(const std::string& path, std::string_view content);

// Replaces dirfd/name atomically: write dirfd/.name.tmp, fsync, rename over name.
Result<void> write_file_atomic(int dirfd, const std::string& name, std::string_view content, mode_t mode = 0600);

// Writes all of content to fd, retrying short writes and EINTR.
Result<void> write_all(int fd, std::string_view content);

}  // namespace husk
