// Files husk writes for its caller (--log, --verdict, --pid-file), which husk, often root, opens by a path the
// caller gave: no other user may steer where it writes. The unsafe-path rule of careful root programs
// (docs/husk.8.md, FILES HUSK WRITES FOR ITS CALLER): every directory from / to the file's own is owned by root
// or by husk's caller (its real uid) and writable by no one else, except a sticky directory (/tmp), where only
// entries owned by root or the caller are followed or replaced; a symlink is followed only where it is one of
// those; the file itself is never a symlink and is a regular file or absent. The file's own directory alone
// may belong to another user, writable by them only (podman's userdata directory with --uidmap belongs to the
// container's root): husk looks nothing up below it, and the file there must have a single name (not a hard
// link that user made), besides never being a symlink, a FIFO or a device.
#pragma once

#include <string>
#include <string_view>

#include "husk/error.hpp"
#include "husk/unique_fd.hpp"

namespace husk {

struct CallerFile {
    UniqueFd dir;      // the file's directory, O_RDONLY | O_DIRECTORY, reached by the rule
    std::string name;  // the file's name in it
    bool foreign_directory = false;  // `dir` belongs to another user: the file must keep a single name
};

// Errors name `flag` and the path, and say which component broke the rule:
//   `--verdict /tmp/x/v.json: /tmp/x is writable by uid 1000, who is neither root nor husk's caller (uid 0): it
//   could redirect the file; use a directory only root or you can write`
Result<CallerFile> open_caller_file(const std::string& path, std::string_view flag);

// Appends `text` to the caller's file at `path` in one write: opened without following a symlink, without
// blocking (a FIFO is refused, never waited on), a regular file only, created 0644 when absent.
Result<void> append_caller_file(const std::string& path, std::string_view flag, std::string_view text);

}  // namespace husk
