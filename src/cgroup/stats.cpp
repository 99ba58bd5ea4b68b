#include "cgroup/stats.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>

#include "base/json_writer.hpp"
#include "cgroup/controller.hpp"
#include "cgroup/hierarchy.hpp"
#include "husk/unique_fd.hpp"

namespace husk::cgroup {
namespace {

std::optional<std::uint64_t> to_u64(std::string_view text) {
    std::uint64_t value = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
    return value;
}

// Calls f(line) for each non-empty line.
template <typename F>
Result<void> for_each_line(std::string_view text, F&& f) {
    while (!text.empty()) {
        std::size_t end = text.find('\n');
        std::string_view line = text.substr(0, end);
        if (!line.empty()) TRY(f(line));
        if (end == std::string_view::npos) break;
        text.remove_prefix(end + 1);
    }
    return {};
}

Error bad_line(std::string_view line, const std::string& where) {
    return Error::msg("unexpected line \"" + std::string(line) + "\" in " + where);
}

struct IoKey {
    std::string_view key;
    bool bytes;  // the ioServiceBytesRecursive table, else ioServicedRecursive
    const char* op;
};
constexpr IoKey io_keys[] = {{"rbytes", true, "Read"}, {"wbytes", true, "Write"}, {"rios", false, "Read"},
                             {"wios", false, "Write"}};

void write_memory_entry(JsonWriter& w, std::string_view name, const MemoryEntry& e) {
    // Go's omitempty: usage and max are left out when zero, limit and failcnt never.
    w.key(name).begin_object();
    w.key("limit").unsigned_integer(e.limit);
    if (e.usage) w.key("usage").unsigned_integer(e.usage);
    if (e.max) w.key("max").unsigned_integer(e.max);
    w.key("failcnt").unsigned_integer(e.failcnt);
    w.end_object();
}

void write_blkio_table(JsonWriter& w, std::string_view name, const std::vector<BlkioEntry>& entries) {
    if (entries.empty()) return;
    w.key(name).begin_array();
    for (const BlkioEntry& e : entries) {
        w.begin_object();
        if (e.major) w.key("major").unsigned_integer(e.major);
        if (e.minor) w.key("minor").unsigned_integer(e.minor);
        if (!e.op.empty()) w.key("op").string(e.op);
        if (e.value) w.key("value").unsigned_integer(e.value);
        w.end_object();
    }
    w.end_array();
}

void write_stats(JsonWriter& w, const Stats& s) {
    w.begin_object();
    w.key("cpu").begin_object();
    w.key("usage").begin_object();
    if (s.cpu.total_ns) w.key("total").unsigned_integer(s.cpu.total_ns);
    w.key("kernel").unsigned_integer(s.cpu.kernel_ns);
    w.key("user").unsigned_integer(s.cpu.user_ns);
    w.end_object();
    w.key("throttling").begin_object();
    if (s.cpu.periods) w.key("periods").unsigned_integer(s.cpu.periods);
    if (s.cpu.throttled_periods) w.key("throttledPeriods").unsigned_integer(s.cpu.throttled_periods);
    if (s.cpu.throttled_ns) w.key("throttledTime").unsigned_integer(s.cpu.throttled_ns);
    w.end_object();
    w.end_object();
    // cgroup v2 has no cpuset counters; runc prints these fields as zeros there.
    w.key("cpuset").begin_object();
    for (const char* name : {"cpu_exclusive", "mem_hardwall", "mem_exclusive", "memory_migrate", "memory_spread_page",
                             "memory_spread_slab", "memory_pressure", "sched_load_balance", "sched_relax_domain_level"})
        w.key(name).integer(0);
    w.end_object();
    w.key("memory").begin_object();
    if (s.memory.cache) w.key("cache").unsigned_integer(s.memory.cache);
    write_memory_entry(w, "usage", s.memory.usage);
    write_memory_entry(w, "swap", s.memory.swap);
    write_memory_entry(w, "kernel", {});     // no separate kernel memory accounting on v2
    write_memory_entry(w, "kernelTCP", {});
    if (!s.memory.raw.empty()) {
        w.key("raw").begin_object();
        for (const auto& [key, value] : s.memory.raw) w.key(key).unsigned_integer(value);
        w.end_object();
    }
    w.end_object();
    w.key("pids").begin_object();
    if (s.pids.current) w.key("current").unsigned_integer(s.pids.current);
    if (s.pids.limit) w.key("limit").unsigned_integer(s.pids.limit);
    w.end_object();
    w.key("blkio").begin_object();
    write_blkio_table(w, "ioServiceBytesRecursive", s.blkio.service_bytes);
    write_blkio_table(w, "ioServicedRecursive", s.blkio.serviced);
    w.end_object();
    w.key("hugetlb").begin_object();
    for (const HugetlbStats& h : s.hugetlb) {
        w.key(h.page_size).begin_object();
        if (h.usage) w.key("usage").unsigned_integer(h.usage);
        w.key("failcnt").unsigned_integer(h.failcnt);
        w.end_object();
    }
    w.end_object();
    w.key("intel_rdt").begin_object().end_object();
    w.key("network_interfaces").null();
    w.end_object();
}

}  // namespace

std::uint64_t keyed_value(const std::vector<std::pair<std::string, std::uint64_t>>& pairs, std::string_view key) {
    for (const auto& [k, v] : pairs)
        if (k == key) return v;
    return 0;
}

Result<std::optional<std::string>> read_optional_file(int dir_fd, const char* name, const std::string& where) {
    auto text = read_cgroup_file(dir_fd, name, where);
    if (!text) {
        if (text.error().err == ENOENT) return std::optional<std::string>();
        return std::unexpected(text.error());
    }
    return std::optional<std::string>(std::move(*text));
}

Result<std::optional<std::uint64_t>> read_single_counter(int dir_fd, const char* name, const std::string& where) {
    auto text = TRY(read_optional_file(dir_fd, name, where));
    if (!text) return std::optional<std::uint64_t>();
    return std::optional<std::uint64_t>(TRY(parse_single_value(*text, where + "/" + name)));
}

Result<std::optional<std::vector<std::pair<std::string, std::uint64_t>>>> read_keyed_counters(
    int dir_fd, const char* name, const std::string& where) {
    using Pairs = std::vector<std::pair<std::string, std::uint64_t>>;
    auto text = TRY(read_optional_file(dir_fd, name, where));
    if (!text) return std::optional<Pairs>();
    return std::optional<Pairs>(TRY(parse_flat_keyed(*text, where + "/" + name)));
}


Result<std::vector<std::pair<std::string, std::uint64_t>>> parse_flat_keyed(std::string_view text,
                                                                            const std::string& where) {
    std::vector<std::pair<std::string, std::uint64_t>> out;
    TRY(for_each_line(text, [&](std::string_view line) -> Result<void> {
        std::size_t space = line.find(' ');
        if (space == 0 || space == std::string_view::npos) return std::unexpected(bad_line(line, where));
        auto value = to_u64(line.substr(space + 1));
        if (!value) return std::unexpected(bad_line(line, where));
        out.emplace_back(std::string(line.substr(0, space)), *value);
        return {};
    }));
    return out;
}

Result<std::uint64_t> parse_single_value(std::string_view text, const std::string& where) {
    if (text.ends_with('\n')) text.remove_suffix(1);
    if (text == "max") return unlimited;
    auto value = to_u64(text);
    if (!value) return fail_msg("unexpected content \"" + std::string(text) + "\" in " + where);
    return *value;
}

Result<CpuStats> parse_cpu_stat(std::string_view text, const std::string& where) {
    auto pairs = TRY(parse_flat_keyed(text, where));
    CpuStats cpu;
    cpu.total_ns = keyed_value(pairs, "usage_usec") * 1000;
    cpu.user_ns = keyed_value(pairs, "user_usec") * 1000;
    cpu.kernel_ns = keyed_value(pairs, "system_usec") * 1000;
    cpu.periods = keyed_value(pairs, "nr_periods");
    cpu.throttled_periods = keyed_value(pairs, "nr_throttled");
    cpu.throttled_ns = keyed_value(pairs, "throttled_usec") * 1000;
    return cpu;
}

Result<BlkioStats> parse_io_stat(std::string_view text, const std::string& where) {
    BlkioStats out;
    TRY(for_each_line(text, [&](std::string_view line) -> Result<void> {
        std::size_t space = line.find(' ');
        std::string_view device = line.substr(0, space);
        std::size_t colon = device.find(':');
        auto major = to_u64(device.substr(0, colon));
        auto minor = colon == std::string_view::npos ? std::nullopt : to_u64(device.substr(colon + 1));
        if (!major || !minor) return std::unexpected(bad_line(line, where));
        std::string_view rest = space == std::string_view::npos ? std::string_view() : line.substr(space + 1);
        while (!rest.empty()) {
            std::string_view item = rest.substr(0, rest.find(' '));
            rest.remove_prefix(std::min(rest.size(), item.size() + 1));
            if (item.empty()) continue;
            std::size_t eq = item.find('=');
            if (eq == std::string_view::npos) return std::unexpected(bad_line(line, where));
            std::string_view key = item.substr(0, eq);
            // runc maps only these four to the cgroup v1 tables; the others (dbytes, dios, ...) are skipped.
            const IoKey* known = std::find_if(std::begin(io_keys), std::end(io_keys),
                                              [&](const IoKey& k) { return k.key == key; });
            if (known == std::end(io_keys)) continue;
            auto value = to_u64(item.substr(eq + 1));
            if (!value) return std::unexpected(bad_line(line, where));
            (known->bytes ? out.service_bytes : out.serviced).push_back(BlkioEntry{*major, *minor, known->op, *value});
        }
        return {};
    }));
    return out;
}

Result<Stats> read_stats(int dir_fd, const std::string& where) {
    Stats s;
    for (const Controller* controller : controller_table())
        if (controller->read_stats) TRY(controller->read_stats(dir_fd, where, s));
    return s;
}

Result<std::optional<std::uint64_t>> read_oom_count(int dir_fd, const std::string& where) {
    auto events = TRY(read_keyed_counters(dir_fd, "memory.events", where));
    if (!events) return std::optional<std::uint64_t>();
    for (const char* key : {"oom_kill", "oom"})
        for (const auto& [k, v] : *events)
            if (k == key) return std::optional<std::uint64_t>(v);
    return std::optional<std::uint64_t>(0);
}

std::string stats_event_json(std::string_view id, const Stats& stats) {
    JsonWriter w;
    w.begin_object();
    w.key("type").string("stats");
    w.key("id").string(id);
    w.key("data");
    write_stats(w, stats);
    w.end_object();
    return w.str();
}

std::string oom_event_json(std::string_view id) {
    JsonWriter w;
    w.begin_object();
    w.key("type").string("oom");
    w.key("id").string(id);
    w.end_object();
    return w.str();
}

}  // namespace husk::cgroup
