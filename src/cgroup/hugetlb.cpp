// The hugetlb controller (cgroup-v2.rst "HugeTLB"): linux.resources.hugepageLimits → hugetlb.<size>.max
// and, where the kernel has it, hugetlb.<size>.rsvd.max; huge-page counters read back; usage per page size.
#include "cgroup/controller.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>

#include "base/dir.hpp"
#include "base/quote.hpp"
#include "cgroup/readback_format.hpp"
#include "husk/unique_fd.hpp"

namespace husk::cgroup {
namespace {

void list(const spec::Resources& resources, Requests& out) {
    for (std::size_t i = 0; i < resources.hugepage_limits.size(); ++i)
        out.add("hugepageLimits[" + std::to_string(i) + "]", "hugetlb");
}

// "2MB": digits and a unit, as the kernel names hugetlb.<size>.* files (config-linux.md: <size><unit-prefix>B).
bool valid_page_size(const std::string& size) {
    if (size.size() < 3 || size[0] < '1' || size[0] > '9') return false;
    std::string unit = size.substr(size.size() - 2);
    if (unit != "KB" && unit != "MB" && unit != "GB" && unit != "TB") return false;
    return std::all_of(size.begin(), size.end() - 2, [](char c) { return c >= '0' && c <= '9'; });
}

Result<void> plan_hugepages(const std::vector<spec::HugepageLimit>& limits, Writes& out) {
    for (std::size_t i = 0; i < limits.size(); ++i) {
        const spec::HugepageLimit& limit = limits[i];
        std::string field = "hugepageLimits[" + std::to_string(i) + "]";
        if (!valid_page_size(limit.page_size))
            return refuse(field + ".pageSize", quoted(limit.page_size) + " is not a page size like \"2MB\"");
        std::string file = "hugetlb." + limit.page_size + ".max";
        if (!out.has_file(file))
            return refuse(field + ".pageSize", "the kernel offers no " + limit.page_size + " huge pages (no " + file +
                                                   " in " + out.options().where + ")");
        out.add(field, "hugetlb", file, std::to_string(limit.limit));
        // Reservations (mmap of huge pages) are limited separately since Linux 5.7; runc sets both, so the
        // limit holds whether a page is reserved or faulted in.
        std::string rsvd = "hugetlb." + limit.page_size + ".rsvd.max";
        if (out.probing() && out.has_file(rsvd)) out.add(field, "hugetlb", rsvd, std::to_string(limit.limit));
    }
    return {};
}

Result<void> plan(const spec::Resources& resources, Writes& out) {
    return plan_hugepages(resources.hugepage_limits, out);
}

// "2MB" in hugetlb.2MB.max → bytes.
std::optional<std::uint64_t> huge_page_bytes(std::string_view file) {
    std::string_view size = file.substr(8);  // after "hugetlb."
    size = size.substr(0, size.find('.'));
    if (size.size() < 3 || size.back() != 'B') return std::nullopt;
    auto bytes = memparse(size.substr(0, size.size() - 1));
    return bytes && *bytes > 0 ? bytes : std::nullopt;
}

std::optional<Readback> compare(std::string_view file, std::string_view written, std::string_view read,
                                std::size_t page_size) {
    if (!file.starts_with("hugetlb.") || !file.ends_with(".max")) return std::nullopt;
    auto huge = huge_page_bytes(file);
    return huge ? compare_page_counter(written, read, *huge, page_size) : Readback::unknown;
}

// Page sizes with a hugetlb.<size>.current file, sorted ("1GB", "2MB").
Result<std::vector<std::string>> hugetlb_page_sizes(int dir_fd, const std::string& where) {
    constexpr std::string_view prefix = "hugetlb.", suffix = ".current";
    std::vector<std::string> sizes;
    for (const DirEntry& entry : TRY(list_dir_at(dir_fd, where))) {
        std::string_view name = entry.name;
        if (!name.starts_with(prefix) || !name.ends_with(suffix)) continue;
        std::string_view size = name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
        if (!size.empty() && size.find('.') == std::string_view::npos) sizes.emplace_back(size);  // not *.rsvd.*
    }
    std::sort(sizes.begin(), sizes.end());
    return sizes;
}

Result<void> read_hugetlb(int dir_fd, const std::string& where, std::vector<HugetlbStats>& out) {
    for (const std::string& size : TRY(hugetlb_page_sizes(dir_fd, where))) {
        HugetlbStats h;
        h.page_size = size;
        std::string current = "hugetlb." + size + ".current", events = "hugetlb." + size + ".events";
        h.usage = TRY(read_single_counter(dir_fd, current.c_str(), where)).value_or(0);
        if (auto e = TRY(read_keyed_counters(dir_fd, events.c_str(), where))) h.failcnt = keyed_value(*e, "max");
        out.push_back(std::move(h));
    }
    return {};
}

Result<void> read_counters(int dir_fd, const std::string& where, Stats& stats) {
    return read_hugetlb(dir_fd, where, stats.hugetlb);
}

}  // namespace

extern const Controller hugetlb_controller{"hugetlb", list, plan, compare, read_counters};

}  // namespace husk::cgroup
