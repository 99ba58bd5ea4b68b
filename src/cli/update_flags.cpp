#include "cli/update_flags.hpp"

#include <charconv>
#include <limits>

#include "base/quote.hpp"
#include "base/size.hpp"

namespace husk::cli {
namespace {

constexpr UpdateFlagInfo flag_table[] = {
    {"blkio-weight", "block IO weight, 10 to 1000 (linux.resources.blockIO.weight)"},
    {"cpu-period", "CFS period in microseconds (cpu.period)"},
    {"cpu-quota", "CFS quota in microseconds per period, -1 for none (cpu.quota)"},
    {"cpu-burst", "CFS burst in microseconds (cpu.burst)"},
    {"cpu-share", "CPU shares, a relative weight (cpu.shares)"},
    {"cpu-shares", "the same as --cpu-share"},
    {"cpu-rt-period", "realtime period in microseconds (cpu.realtimePeriod)"},
    {"cpu-rt-runtime", "realtime runtime in microseconds (cpu.realtimeRuntime)"},
    {"cpuset-cpus", "CPUs to use, e.g. 0-3,7 (cpu.cpus)"},
    {"cpuset-mems", "memory nodes to use (cpu.mems)"},
    {"kernel-memory", "kernel memory limit (memory.kernel; obsolete)"},
    {"kernel-memory-tcp", "kernel TCP memory limit (memory.kernelTCP; obsolete)"},
    {"memory", "memory limit: bytes or 64k, 512m, 1g; -1 for none (memory.limit)"},
    {"cpu-idle", "1: SCHED_IDLE for the cgroup, 0: normal (cpu.idle)"},
    {"memory-reservation", "memory soft limit, same units as --memory (memory.reservation)"},
    {"memory-swap", "memory + swap limit, same units as --memory; -1 for unlimited swap (memory.swap)"},
    {"pids-limit", "maximum number of pids (pids.limit)"},
    {"l3-cache-schema", "Intel RDT L3 cache schema (not supported by husk)"},
    {"mem-bw-schema", "Intel RDT memory bandwidth schema (not supported by husk)"},
};

Error flag_error(const UpdateFlag& flag, std::string_view why) {
    return Error::msg("--" + flag.name + " \"" + flag.value + "\": " + std::string(why));
}

template <typename T>
Result<T> parse_integer(const UpdateFlag& flag) {
    T value{};
    const std::string& text = flag.value;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec == std::errc::result_out_of_range) return std::unexpected(flag_error(flag, "out of range"));
    if (ec != std::errc() || end != text.data() + text.size() || text.empty())
        return std::unexpected(flag_error(flag, std::is_signed_v<T> ? "not an integer" : "not an unsigned integer"));
    return value;
}

Result<std::int64_t> parse_memory(const UpdateFlag& flag) {
    auto value = parse_memory_size(flag.value);
    // The size error quotes the value already: `--memory: size "64q": unknown unit "q" (...)`.
    if (!value) return std::unexpected(Error::msg("--" + flag.name + ": " + value.error().message()));
    return value;
}

Result<std::string> non_empty(const UpdateFlag& flag) {
    if (flag.value.empty()) return std::unexpected(flag_error(flag, "must not be empty"));
    return flag.value;
}

spec::MemoryResources& memory(spec::Resources& r) { return r.memory ? *r.memory : r.memory.emplace(); }
spec::CpuResources& cpu(spec::Resources& r) { return r.cpu ? *r.cpu : r.cpu.emplace(); }

Result<void> apply_one(const UpdateFlag& flag, spec::Resources& r) {
    const std::string& n = flag.name;
    if (n == "blkio-weight") {
        std::uint16_t weight = TRY(parse_integer<std::uint16_t>(flag));
        (r.block_io ? *r.block_io : r.block_io.emplace()).weight = weight;
    } else if (n == "cpu-period") {
        cpu(r).period = TRY(parse_integer<std::uint64_t>(flag));
    } else if (n == "cpu-quota") {
        cpu(r).quota = TRY(parse_integer<std::int64_t>(flag));
    } else if (n == "cpu-burst") {
        // runc parses an unsigned number; the spec field is a signed one.
        std::uint64_t burst = TRY(parse_integer<std::uint64_t>(flag));
        if (burst > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
            return std::unexpected(flag_error(flag, "out of range"));
        cpu(r).burst = static_cast<std::int64_t>(burst);
    } else if (n == "cpu-share" || n == "cpu-shares") {
        cpu(r).shares = TRY(parse_integer<std::uint64_t>(flag));
    } else if (n == "cpu-rt-period") {
        cpu(r).realtime_period = TRY(parse_integer<std::uint64_t>(flag));
    } else if (n == "cpu-rt-runtime") {
        cpu(r).realtime_runtime = TRY(parse_integer<std::int64_t>(flag));
    } else if (n == "cpuset-cpus") {
        cpu(r).cpus = TRY(non_empty(flag));
    } else if (n == "cpuset-mems") {
        cpu(r).mems = TRY(non_empty(flag));
    } else if (n == "cpu-idle") {
        cpu(r).idle = TRY(parse_integer<std::int64_t>(flag));
    } else if (n == "memory") {
        memory(r).limit = TRY(parse_memory(flag));
    } else if (n == "memory-reservation") {
        memory(r).reservation = TRY(parse_memory(flag));
    } else if (n == "memory-swap") {
        memory(r).swap = TRY(parse_memory(flag));
    } else if (n == "kernel-memory") {
        memory(r).kernel = TRY(parse_memory(flag));
    } else if (n == "kernel-memory-tcp") {
        memory(r).kernel_tcp = TRY(parse_memory(flag));
    } else if (n == "pids-limit") {
        r.pids_limit = TRY(parse_integer<std::int64_t>(flag));
    } else if (n == "l3-cache-schema" || n == "mem-bw-schema") {
        return std::unexpected(Error::msg("--" + n + ": husk does not implement Intel RDT (linux.intelRdt), so it "
                                          "cannot change the " + (n == "l3-cache-schema" ? "L3 cache" : "memory bandwidth") +
                                          " schema"));
    } else {
        return std::unexpected(Error::msg("--" + n + ": not an update flag"));
    }
    return {};
}

}  // namespace

std::span<const UpdateFlagInfo> update_flags() { return flag_table; }

Result<std::int64_t> parse_memory_size(std::string_view text) {
    if (text == "-1") return -1;  // runc's "no limit"
    std::uint64_t bytes = TRY(parse_size(text));
    // The spec's fields are int64: 8 EiB and up cannot be written.
    if (bytes > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
        return fail_msg("size " + quoted(text) + ": too large");
    return static_cast<std::int64_t>(bytes);
}

Result<void> apply_update_flags(const std::vector<UpdateFlag>& flags, spec::Resources& resources) {
    for (const UpdateFlag& flag : flags) TRY(apply_one(flag, resources));
    return {};
}

}  // namespace husk::cli
