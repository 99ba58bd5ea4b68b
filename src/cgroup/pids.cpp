// The pids controller (cgroup-v2.rst "PID"): linux.resources.pids.limit → pids.max, read as the config's
// ociVersion says; pids.current and pids.max for stats.
#include "cgroup/controller.hpp"

#include <algorithm>

#include "cgroup/hierarchy.hpp"
#include "cgroup/readback_format.hpp"

namespace husk::cgroup {
namespace {

void list(const spec::Resources& resources, Requests& out) { out.add_if(resources.pids_limit, "pids.limit", "pids"); }

// pids.max for linux.resources.pids.limit, read as the config's ociVersion says (see PidsLimitReading).
Result<std::string> pids_max(std::int64_t limit, PidsLimitReading reading) {
    if (reading == PidsLimitReading::before_1_3) return limit <= 0 ? std::string("max") : std::to_string(limit);
    if (limit == -1) return std::string("max");
    if (limit < 0)
        return refuse("pids.limit", std::to_string(limit) + " is neither -1 (no limit) nor a number of tasks");
    return std::to_string(limit);
}

Result<void> plan(const spec::Resources& resources, Writes& out) {
    if (resources.pids_limit) {
        // The TRY before the call, not among its arguments (g++ would not destroy the strings already built).
        std::string value = TRY(pids_max(*resources.pids_limit, out.options().pids_reading));
        out.add("pids.limit", "pids", "pids.max", std::move(value));
    }
    return {};
}

std::optional<Readback> compare(std::string_view file, std::string_view written, std::string_view read,
                                std::size_t) {
    if (file == "pids.max") return compare_number_or_max(written, read);
    return std::nullopt;
}

Result<void> read_pids(int dir_fd, const std::string& where, PidsStats& out) {
    if (auto current = TRY(read_single_counter(dir_fd, "pids.current", where))) {
        out.current = *current;
        std::uint64_t limit = TRY(read_single_counter(dir_fd, "pids.max", where)).value_or(unlimited);
        out.limit = limit == unlimited ? 0 : limit;
        return {};
    }
    // No pids controller: count the cgroup's processes, as runc does (statPidsWithoutController).
    auto procs = TRY(read_cgroup_file(dir_fd, "cgroup.procs", where));
    out.current = static_cast<std::uint64_t>(std::count(procs.begin(), procs.end(), '\n'));
    return {};
}

Result<void> read_counters(int dir_fd, const std::string& where, Stats& stats) {
    return read_pids(dir_fd, where, stats.pids);
}

}  // namespace

extern const Controller pids_controller{"pids", list, plan, compare, read_counters};

PidsLimitReading pids_limit_reading(std::string_view oci_version) {
    if (!oci_version.starts_with("1.")) return PidsLimitReading::spec_1_3;
    std::string_view minor = oci_version.substr(2, oci_version.find_first_not_of("0123456789", 2) - 2);
    bool before = minor.size() == 1 && minor[0] >= '0' && minor[0] <= '2';
    return before ? PidsLimitReading::before_1_3 : PidsLimitReading::spec_1_3;
}


}  // namespace husk::cgroup
