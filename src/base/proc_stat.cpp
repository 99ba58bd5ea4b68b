#include "base/proc_stat.hpp"

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

}  // namespace husk
