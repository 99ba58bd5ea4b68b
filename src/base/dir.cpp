#include "base/dir.hpp"

#include <dirent.h>
#include <fcntl.h>

#include <cerrno>
#include <memory>
#include <string_view>

#include "husk/unique_fd.hpp"

namespace husk {
namespace {

struct CloseDir {
    void operator()(DIR* dir) const noexcept { ::closedir(dir); }
};
using DirHandle = std::unique_ptr<DIR, CloseDir>;

Result<std::vector<DirEntry>> read_entries(UniqueFd fd, const std::string& where) {
    DirHandle dir(::fdopendir(fd.get()));
    if (!dir) return fail_sys(errno, "opendir", where);
    (void)fd.release();  // closedir closes it now
    std::vector<DirEntry> entries;
    errno = 0;
    while (const dirent* entry = ::readdir(dir.get())) {
        std::string_view name = entry->d_name;
        if (name != "." && name != "..") entries.push_back({std::string(name), entry->d_type});
        errno = 0;
    }
    if (errno != 0) return fail_sys(errno, "readdir", where);
    return entries;
}

}  // namespace

Result<std::vector<DirEntry>> list_dir_at(int dirfd, const std::string& where) {
    UniqueFd fd(::openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!fd) return fail_sys(errno, "open", where);
    return read_entries(std::move(fd), where);
}

Result<std::vector<DirEntry>> list_dir(const std::string& path) {
    UniqueFd fd(::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!fd) return fail_sys(errno, "open", path);
    return read_entries(std::move(fd), path);
}

}  // namespace husk
