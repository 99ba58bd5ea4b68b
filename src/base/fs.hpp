// File helpers for the parent side: whole-file reads, atomic replacement, opening into a UniqueFd.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "husk/error.hpp"
#include "husk/unique_fd.hpp"

namespace husk {

// open(2)/openat(2) with O_CLOEXEC always added.
Result<UniqueFd> open_fd(const std::string& path, int flags, mode_t mode = 0);
Result<UniqueFd> open_fd_at(int dirfd, const std::string& path, int flags, mode_t mode = 0);
// The same, naming `subject` in the error: the path the user knows (often dirfd's path joined with path),
// where path alone would say only "cgroup.procs".
Result<UniqueFd> open_fd_at(int dirfd, const std::string& path, int flags, std::string_view subject);

// pipe2(2) with O_CLOEXEC, both ends owned. noexcept and allocation-free: a forked hook runner may call it.
struct Pipe {
    UniqueFd read_end;
    UniqueFd write_end;
};
Result<Pipe> open_pipe() noexcept;

// Whole-file reads take regular files only (opened O_NONBLOCK, so a FIFO cannot block the open, and
// refused after fstat, like /dev/zero, which never ends) and stop at max_bytes: more is an error naming the
// file. procfs and cgroupfs files are regular files.
inline constexpr std::size_t default_read_limit = std::size_t{64} << 20;
Result<std::string> read_file(const std::string& path, std::size_t max_bytes = default_read_limit);
// `extra_flags` are added to open's (O_NOFOLLOW: a symlink at name is an error, ELOOP).
Result<std::string> read_file_at(int dirfd, const std::string& name, std::size_t max_bytes = default_read_limit,
                                 int extra_flags = 0);
// Reads fd to its end, whatever it is (standard input may be a pipe); more than max_bytes is an error.
Result<std::string> read_fd(int fd, std::size_t max_bytes = default_read_limit);

// Writes content with one write(2) to an existing file (procfs, cgroupfs): no create, no truncate.
Result<void> write_existing_file(const std::string& path, std::string_view content);

// Replaces dirfd/name atomically: write a new dirfd/.name.RANDOM.tmp (O_EXCL, O_NOFOLLOW), fsync, rename over
// name (a symlink at name is replaced, never followed).
Result<void> write_file_atomic(int dirfd, const std::string& name, std::string_view content, mode_t mode = 0600);

// Writes all of content to fd, retrying short writes and EINTR.
Result<void> write_all(int fd, std::string_view content);

// --preserve-fds N: the caller's fds 3..3+N-1 must all be open when husk starts, before it opens any of its
// own. A hole would be filled by one of husk's fds (init's root or pidfd, a cgroup directory, the console
// socket), whose close-on-exec the child then clears for the container.
Result<void> check_preserved_fds(int count);

}  // namespace husk
