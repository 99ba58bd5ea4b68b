// StateRoot: <root> open once, for a reader of every container at once (`husk list`). Each container costs
// one openat2 of `<id>/state.json` under the root's fd, one read into a buffer kept for the next, and one
// faccessat of its lock file; no container's directory is opened. Whatever is out of the ordinary is left to
// StateDir, which says what it is.
#pragma once

#include <optional>
#include <string>

#include "husk/container_id.hpp"
#include "husk/error.hpp"
#include "husk/unique_fd.hpp"
#include "state/record.hpp"

namespace husk::state {

class StateRoot {
public:
    static Result<StateRoot> open(const std::string& root);

    // The record of <root>/<id> when it is the plain file husk writes: a regular file reached without a
    // symlink, smaller than the buffer, a valid record. Nothing otherwise (no record yet, <id> or state.json a
    // symlink, not a regular file, corrupt, gone): StateDir::open_unlocked and read_record then decide, as
    // they did before this reader existed. Record::monitor_error is not read.
    std::optional<Record> read_plain_record(const ContainerId& id);
    // <root>/<id>/lock exists, what StateDir::open_unlocked requires of a container (followed, as there).
    bool has_lock(const ContainerId& id) const;

    int fd() const { return fd_.get(); }

private:
    explicit StateRoot(UniqueFd fd) : fd_(std::move(fd)) {}
    UniqueFd fd_;
    std::string buffer_;
};

}  // namespace husk::state
