#include "state/process_identity.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>

#include "base/fs.hpp"
#include "base/sys.hpp"

namespace husk::state {

Result<std::string> read_boot_id() {
    // Constant for the life of the machine, so read once per process (a run asked four times: the record,
    // start's and delete's liveness checks, the monitor's).
    static std::string cached;
    if (!cached.empty()) return cached;
    std::string id = TRY(read_file("/proc/sys/kernel/random/boot_id"));
    while (!id.empty() && (id.back() == '\n' || id.back() == ' ')) id.pop_back();
    cached = id;
    return id;
}

std::optional<UniqueFd> open_live_pidfd(pid_t pid, std::uint64_t start_time, const std::string& boot_id) {
    if (pid <= 0) return std::nullopt;
    auto current_boot = read_boot_id();
    if (!current_boot || *current_boot != boot_id) return std::nullopt;
    UniqueFd pidfd(sys::pidfd_open(pid, 0));
    if (!pidfd) return std::nullopt;
    auto stat = read_proc_stat(pid);
    if (!stat || stat->start_time != start_time || stat->state == 'Z' || stat->state == 'X') return std::nullopt;
    return pidfd;
}

}  // namespace husk::state
