// Usage counters of a cgroup v2 directory, read from whatever interface files exist there, and runc's
// `events` JSON for them (runc types/events.go; the v2 mapping follows libcontainer/cgroups/fs2). A
// controller that is not enabled for the cgroup leaves its fields at zero, as runc reports them.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "husk/error.hpp"

namespace husk::cgroup {

// "max" in a v2 limit file; runc reports it as the largest uint64.
inline constexpr std::uint64_t unlimited = std::numeric_limits<std::uint64_t>::max();

struct CpuStats {
    std::uint64_t total_ns = 0, user_ns = 0, kernel_ns = 0;  // cpu.stat usage_usec, user_usec, system_usec
    std::uint64_t periods = 0, throttled_periods = 0, throttled_ns = 0;  // nr_periods, nr_throttled, throttled_usec
};

// runc's MemoryEntry: a usage and its limit.
struct MemoryEntry {
    std::uint64_t limit = 0, usage = 0, max = 0, failcnt = 0;
};

struct MemoryStats {
    std::uint64_t cache = 0;  // memory.stat "file"
    MemoryEntry usage;        // memory.current / memory.max / memory.peak / memory.events "max"
    MemoryEntry swap;         // memory + swap together, as cgroup v1 (and runc) report it
    std::vector<std::pair<std::string, std::uint64_t>> raw;  // memory.stat, in file order
};

struct PidsStats {
    std::uint64_t current = 0, limit = 0;  // limit 0 = none ("max")
};

struct BlkioEntry {
    std::uint64_t major = 0, minor = 0;
    std::string op;  // "Read" or "Write"
    std::uint64_t value = 0;
};

struct BlkioStats {
    std::vector<BlkioEntry> service_bytes;  // io.stat rbytes / wbytes
    std::vector<BlkioEntry> serviced;       // io.stat rios / wios
};

struct HugetlbStats {
    std::string page_size;  // "2MB", as in the file names hugetlb.2MB.current
    std::uint64_t usage = 0, failcnt = 0;
};

struct Stats {
    CpuStats cpu;
    MemoryStats memory;
    PidsStats pids;
    BlkioStats blkio;
    std::vector<HugetlbStats> hugetlb;  // sorted by page size name
};

// Pure parsers over file contents; `where` names the file in errors.
// "key value" lines (cpu.stat, memory.stat, memory.events): every value must be an unsigned number.
Result<std::vector<std::pair<std::string, std::uint64_t>>> parse_flat_keyed(std::string_view text,
                                                                            const std::string& where);
// One number, or "max" (→ unlimited): memory.max, pids.max, memory.current.
Result<std::uint64_t> parse_single_value(std::string_view text, const std::string& where);
// cpu.stat → CpuStats (microseconds become nanoseconds, as runc reports them).
Result<CpuStats> parse_cpu_stat(std::string_view text, const std::string& where);
// io.stat lines "8:0 rbytes=1 wbytes=2 rios=3 wios=4 dbytes=0 dios=0" → runc's two blkio tables.
Result<BlkioStats> parse_io_stat(std::string_view text, const std::string& where);

// One file of the cgroup open at dir_fd, parsed as above; nothing when the file does not exist (its
// controller is not enabled there). A file that exists but does not parse is an error.
Result<std::optional<std::uint64_t>> read_single_counter(int dir_fd, const char* name, const std::string& where);
Result<std::optional<std::vector<std::pair<std::string, std::uint64_t>>>> read_keyed_counters(
    int dir_fd, const char* name, const std::string& where);

// A file's content, or nothing when it does not exist (its controller is not enabled there).
Result<std::optional<std::string>> read_optional_file(int dir_fd, const char* name, const std::string& where);
// The value of `key` in parsed flat-keyed counters; 0 when absent.
std::uint64_t keyed_value(const std::vector<std::pair<std::string, std::uint64_t>>& pairs, std::string_view key);

// Reads the counters of the cgroup open at dir_fd, controller by controller (controller.hpp); `where` (mount +
// path) names it in errors. Files that do not exist are skipped; a file that exists but cannot be parsed is
// an error.
Result<Stats> read_stats(int dir_fd, const std::string& where);

// memory.events "oom_kill" (or "oom" on kernels without it); nothing when the cgroup has no memory.events.
Result<std::optional<std::uint64_t>> read_oom_count(int dir_fd, const std::string& where);

// One line of `runc events` output, without the newline:
// {"type":"stats","id":ID,"data":{...}} and {"type":"oom","id":ID}.
std::string stats_event_json(std::string_view id, const Stats& stats);
std::string oom_event_json(std::string_view id);

}  // namespace husk::cgroup
