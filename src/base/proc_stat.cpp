#include "base/proc_stat.hpp"

#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "base/fs.hpp"

namespace husk {

Result<ProcStat> read_proc_stat(pid_t pid) {
    std::string text = TRY(read_file("/proc/" + std::to_string(pid) + "/stat"));
    // comm (field 2) may contain spaces and parentheses: the fields after it start at the last ')'.
    auto close = text.rfind(')');
    if (close == std::string::npos || close + 2 >= text.size()) return fail_msg("malformed /proc/PID/stat");
    ProcStat stat;
    stat.state = text[close + 2];
    const char* cursor = text.c_str() + close + 2;  // at field 3
    for (int field = 3; field <= 52; ++field) {
        if (field == 22) stat.start_time = std::strtoull(cursor, nullptr, 10);
        if (field == 52) {
            stat.exit_code = static_cast<int>(std::strtol(cursor, nullptr, 10));
            break;
        }
        cursor = std::strchr(cursor, ' ');
        if (cursor == nullptr) break;  // older kernels have fewer fields; exit_code stays 0
        ++cursor;
    }
    return stat;
}

// Keyed by the pid, so that a child forked from this process (which shares the cache) reads its own.
Result<std::uint64_t> own_start_time() {
    static pid_t cached_pid = 0;
    static std::uint64_t cached = 0;
    const pid_t self = ::getpid();
    if (cached_pid != self) {
        cached = TRY(read_proc_stat(self)).start_time;
        cached_pid = self;
    }
    return cached;
}

}  // namespace husk
