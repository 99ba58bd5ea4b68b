// Listing a directory: the one way husk reads directory entries (state dirs, cgroup trees, sysfs).
#pragma once

#include <string>
#include <vector>

#include "husk/error.hpp"

namespace husk {

struct DirEntry {
    std::string name;
    unsigned char type;  // d_type: DT_DIR, DT_REG, ... or DT_UNKNOWN where the filesystem does not say
};

// The entries of the directory open at dirfd, without "." and "..", in the order readdir(3) gives them.
// The directory is opened anew through dirfd, so dirfd's own offset is untouched and it stays the
// caller's. Errors name `where`, the directory's path.
Result<std::vector<DirEntry>> list_dir_at(int dirfd, const std::string& where);
// The same for a path.
Result<std::vector<DirEntry>> list_dir(const std::string& path);

}  // namespace husk
