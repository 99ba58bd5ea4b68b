#include "cgroup/cpu_hold.hpp"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <vector>

#include "cgroup/hierarchy.hpp"

namespace husk::cgroup {
namespace {

// The kernel's bounds for cpu.max (kernel/sched/core.c): quota at least 1 ms, period at most 1 s.
constexpr std::uint64_t min_quota_usec = 1000;
constexpr std::uint64_t max_period_usec = 1000000;

std::optional<std::uint64_t> number(std::string_view text) {
    std::uint64_t value = 0;
    auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc{} || end != text.data() + text.size()) return std::nullopt;
    return value;
}

std::string trimmed(std::string text) {
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
    return text;
}

}  // namespace

std::optional<std::string> held_cpu_max(std::string_view current, std::chrono::microseconds left) {
    std::vector<std::string> words = split_words(current);
    if (words.size() != 2) return std::nullopt;
    auto period = number(words[1]);
    if (!period || *period == 0) return std::nullopt;
    std::uint64_t want = std::max<std::uint64_t>(static_cast<std::uint64_t>(std::max<long long>(left.count(), 0)),
                                                 min_quota_usec);
    if (words[0] == "max") return std::to_string(want) + " " + std::to_string(max_period_usec);
    auto quota = number(words[0]);
    if (!quota) return std::nullopt;
    // At most half the quota left: the longest period, so that the kernel does not hand out `want` again every
    // short period before the monitor renews the hold. Still never looser: any window of the config's period
    // meets at most two of these periods, 2 × want <= quota.
    if (want * 2 <= *quota) return std::to_string(want) + " " + std::to_string(max_period_usec);
    return std::to_string(std::min(*quota, want)) + " " + std::to_string(*period);
}

std::optional<CpuHold> CpuHold::open(const CgroupLocation& cgroup) {
    auto dir = open_cgroup_dir(cgroup);
    if (!dir || !file_exists(dir->get(), "cpu.max")) return std::nullopt;
    return CpuHold(std::move(*dir), cgroup.where());
}

Result<void> CpuHold::hold(std::chrono::microseconds left) {
    std::string now = trimmed(TRY(read_cgroup_file(dir_.get(), "cpu.max", where_)));
    if (!holding_ || now != written_) original_max_ = now;  // first hold, or husk update wrote since
    if (file_exists(dir_.get(), "cpu.max.burst")) {
        // "0" is ours after the first hold; anything else was there before, or written since (husk update).
        std::string burst = trimmed(TRY(read_cgroup_file(dir_.get(), "cpu.max.burst", where_)));
        if (burst != "0") {
            original_burst_ = burst;
            TRY(write_cgroup_file(dir_.get(), "cpu.max.burst", "0", where_));
        }
    }
    auto value = held_cpu_max(original_max_, left);
    if (!value) return fail_msg(where_ + "/cpu.max: cannot read \"" + original_max_ + "\" as QUOTA PERIOD");
    holding_ = true;
    TRY(write_cgroup_file(dir_.get(), "cpu.max", *value, where_));
    written_ = *value;
    return {};
}

void CpuHold::release() {
    if (!holding_) return;
    holding_ = false;
    (void)write_cgroup_file(dir_.get(), "cpu.max", original_max_, where_);
    if (!original_burst_.empty()) (void)write_cgroup_file(dir_.get(), "cpu.max.burst", original_burst_, where_);
}

}  // namespace husk::cgroup
