#include "state/process_identity.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>

#include "base/fs.hpp"
#include "base/sys.hpp"

namespace husk::state {

Result<ProcStat> read_proc_stat(pid_t pid) {
    std::string text = TRY(read_file("/proc/" + std::to_string(pid) + "/stat"));
    // comm (field 2) may contain spaces and parentheses: fields after it start at the last ')'.
    auto close = text.rfind(')');
    if (close == std::string::npos || close + 2 >= text.size()) return fail_msg("malformed /proc/PID/stat");
    ProcStat stat;
    stat.state = text[close + 2];
    // After ')' come fields 3..: state is field 3, start time field 22 → 19 fields after the state.
    const char* cursor = text.c_str() + close + 2;
    for (int field = 3; field < 22; ++field) {
        cursor = std::strchr(cursor, ' ');
        if (cursor == nullptr) return fail_msg("malformed /proc/PID/stat");
        ++cursor;
    }
    stat.start_time = std::strtoull(cursor, nullptr, 10);
    return stat;
}

Result<std::string> read_boot_id() {
    std::string id = TRY(read_file("/proc/sys/kernel/random/boot_id"));
    while (!id.empty() && (id.back() == '\n' || id.back() == ' ')) id.pop_back();
    return id;
}

std::optional<UniqueFd> open_live_pidfd(pid_t pid, std::uint64_t start_time, const std::string& boot_id) {
    if (pid <= 0) return std::nullopt;
    auto current_boot = read_boot_id();
    if (!current_boot || *current_boot != boot_id) return std::nullopt;
    int fd = sys::pidfd_open(pid, 0);
    if (fd < 0) return std::nullopt;
    UniqueFd pidfd(fd);
    auto stat = read_proc_stat(pid);
    if (!stat || stat->start_time != start_time || stat->state == 'Z' || stat->state == 'X') return std::nullopt;
    return pidfd;
}

}  // namespace husk::state
