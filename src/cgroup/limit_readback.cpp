// compare_readback, which asks the controller whose file it is (controller.hpp), and apply_limits, which
// writes and reads back each file.
#include "cgroup/limit_readback.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "base/fs.hpp"
#include "cgroup/controller.hpp"
#include "cgroup/hierarchy.hpp"
#include "cgroup/limits.hpp"
#include "cgroup/readback_format.hpp"

namespace husk::cgroup {

Readback compare_readback(std::string_view file, std::string_view written, std::string_view read, std::size_t page_size) {
    written = trim(written);
    read = trim(read);
    // The two cgroup core limits a config may write (unified.hpp).
    if (one_of(file, {"cgroup.max.depth", "cgroup.max.descendants"})) return compare_number_or_max(written, read);
    for (const Controller* controller : controller_table())
        if (auto result = controller->compare(file, written, read, page_size)) return *result;
    return Readback::unknown;
}

Result<void> apply_limits(int dir_fd, const std::string& where, const std::vector<LimitWrite>& writes) {
    const auto page_size = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    for (const LimitWrite& w : writes) {
        std::string path = where + "/" + w.file;
        auto opened = open_fd_at(dir_fd, w.file, O_WRONLY | O_NOFOLLOW);
        if (!opened) return fail_sys(opened.error().err, w.field + ": open", path);
        UniqueFd file = std::move(*opened);
        // cgroupfs takes one value per write(2).
        ssize_t n = ::write(file.get(), w.value.data(), w.value.size());
        if (n < 0) return fail_sys(errno, w.field + ": write \"" + w.value + "\" to", path);
        if (static_cast<std::size_t>(n) != w.value.size()) return fail_sys(EIO, w.field + ": short write to", path);

        std::string read = TRY(read_cgroup_file(dir_fd, w.file.c_str(), where));
        Readback result = compare_readback(w.file, w.value, read, page_size);
        // Files husk writes for spec fields all have known formats. A unified key whose format husk does not
        // know is written only: the kernel accepted the write, and there is no general way to tell whether
        // its way of printing the value back means the same thing.
        if (result == Readback::match || (result == Readback::unknown && w.verbatim)) continue;
        std::string shown(read.substr(0, read.find_last_not_of('\n') + 1));
        return fail_msg(w.field + ": wrote \"" + w.value + "\" to " + path + " but read back \"" + shown + "\"");
    }
    return {};
}

}  // namespace husk::cgroup
