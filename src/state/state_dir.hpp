// StateDir: <root>/<id>, the only durable trace of a container. Created exclusively, locked with flock,
// written atomically (docs/ARCHITECTURE.md, "State").
#pragma once

#include <fcntl.h>

#include <string>
#include <string_view>
#include <vector>

#include "husk/container_id.hpp"
#include "husk/error.hpp"
#include "husk/unique_fd.hpp"
#include "state/record.hpp"

namespace husk::state {

enum class Lock { shared, exclusive };

class StateDir {
public:
    // Makes <root>/<id> appear atomically with its lock already held (and `first` already written as the
    // record, when given): a temporary directory `.creating@<id>@<pid>.<start time>-XXXXXX`, named after the
    // calling process, is prepared and renamed into place with RENAME_NOREPLACE, so of two concurrent creates
    // exactly one wins, and a temporary directory whose creator died is recognisable from its name alone.
    static Result<StateDir> create(const std::string& root, const ContainerId& id, const Record* first = nullptr);
    // An existing container; `container does not exist` (kind not_found) otherwise.
    static Result<StateDir> open(const std::string& root, const ContainerId& id);
    // The same for a reader that never locks (`state`, `list`): the lock file must be there all the same, but
    // is not opened, which saves `list` an open and a close per container. lock() on it fails (EBADF);
    // locked_by_other() works as with open(). The directory is open O_PATH, cheaper to open: fd() serves the
    // *at calls only. root_fd, when given, is root open as a directory: a caller that opens many containers
    // (`list`) then has the kernel walk root's path once, not once per container.
    static Result<StateDir> open_unlocked(const std::string& root, const ContainerId& id, int root_fd = AT_FDCWD);

    Result<void> lock(Lock mode);
    // Lets go of the lock before a wait that must not hold up kill or delete.
    void unlock();
    // True when another process holds the lock (a create in progress, for example).
    bool locked_by_other() const;

    // The record, or an ENOENT error while create has not written it yet.
    Result<Record> read_record() const;
    Result<void> write_record(const Record& record);

    // Removes every file in the directory and the directory itself.
    Result<void> remove();

    int fd() const { return dir_.get(); }
    int lock_fd() const { return lock_.get(); }
    const std::string& path() const { return path_; }
    std::string file(const char* name) const { return path_ + "/" + name; }

    // flock's target, there from the moment <id> is: a directory without it is no container.
    static constexpr const char* lock_file = "lock";
    // The record (record.hpp).
    static constexpr const char* record_file = "state.json";
    static constexpr const char* exec_fifo = "exec.fifo";
    // The container's effective config (docs/ARCHITECTURE.md, "The effective config"), written by create.
    static constexpr const char* config = "config.json";
    // <root>/tenants holds the tenant ledgers (docs/tenants.md), so no container may have that id, and
    // list_ids leaves it out.
    static constexpr std::string_view tenants_dir = "tenants";
    // An empty file that exists while every kill request husk sent is in the record (see `kill`).
    static constexpr const char* kills_recorded = "kills-recorded";
    // What the monitor could not write into the record (it has no terminal to say it on). read_record fills
    // Record::monitor_error from it.
    static constexpr const char* monitor_error = "monitor-error";
    // Best effort: (re)writes monitor-error with `message`. The file is created even when the filesystem has
    // no room left for its text (creating an empty file needs an inode, not a block), so its presence alone
    // still tells a reader that a write failed.
    void note_monitor_error(std::string_view message) const;

private:
    StateDir(std::string path, UniqueFd dir, UniqueFd lock) : path_(std::move(path)), dir_(std::move(dir)), lock_(std::move(lock)) {}
    std::string path_;
    UniqueFd dir_;
    UniqueFd lock_;
};

// Removes the `.creating@<id>@*` directories of creates of `id` that died before renaming theirs into place
// (their creator, named in the directory name, is no longer alive). Best effort; those of live creators stay.
void remove_abandoned_creations(const std::string& root, const ContainerId& id);

// The state root like mkdir -p, each new level 0711 (containerd passes nested roots).
Result<void> make_root(const std::string& root);

// Ids of all containers under root, sorted; a missing root means none. Names that are not valid ids (made by
// hand: no verb could name them) and those starting with '.' (create's temporaries) are left out.
std::vector<ContainerId> list_ids(const std::string& root);

}  // namespace husk::state
