#include "state/state_root.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <string_view>

#include "base/fs.hpp"
#include "base/sys.hpp"
#include "state/state_dir.hpp"

namespace husk::state {
namespace {

// A record is about 1 KiB; annotations make it larger. One that fills the buffer is read by StateDir instead.
constexpr std::size_t buffer_bytes = std::size_t{64} << 10;

// "<id>/<name>" without a heap allocation for the usual id (short string).
std::string member(const ContainerId& id, std::string_view name) {
    std::string path;
    path.reserve(id.str().size() + 1 + name.size());
    path += id.str();
    path += '/';
    path += name;
    return path;
}

}  // namespace

Result<StateRoot> StateRoot::open(const std::string& root) {
    return StateRoot(TRY(open_fd(root, O_RDONLY | O_DIRECTORY)));
}

std::optional<Record> StateRoot::read_plain_record(const ContainerId& id) {
    // No symlink anywhere below the root: StateDir opens <id> with O_NOFOLLOW and follows a symlinked
    // state.json, so either one is left to it. O_NONBLOCK: a FIFO cannot block the open.
    open_how how{};
    how.flags = O_RDONLY | O_NONBLOCK | O_CLOEXEC;
    how.resolve = RESOLVE_NO_SYMLINKS;
    UniqueFd file(sys::openat2(fd_.get(), member(id, StateDir::record_file).c_str(), &how));
    if (!file) return std::nullopt;
    if (buffer_.empty()) buffer_.resize(buffer_bytes);
    // Records are replaced by rename, never written in place, so a regular file's one read that does not fill
    // the buffer is all of it (a short read would leave a prefix of an object, which no record decodes from).
    // What is not a regular file reads as an error (a directory), as nothing (a FIFO) or fills the buffer (a
    // device): none decodes.
    ssize_t n;
    do n = ::read(file.get(), buffer_.data(), buffer_.size());
    while (n < 0 && errno == EINTR);
    if (n <= 0 || static_cast<std::size_t>(n) == buffer_.size()) return std::nullopt;
    auto record = decode_record(std::string_view(buffer_.data(), static_cast<std::size_t>(n)));
    if (!record) return std::nullopt;
    return std::move(*record);
}

bool StateRoot::has_lock(const ContainerId& id) const {
    return ::faccessat(fd_.get(), member(id, StateDir::lock_file).c_str(), F_OK, 0) == 0;
}

}  // namespace husk::state
