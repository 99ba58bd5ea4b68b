// One cgroup v2 controller as husk drives it, each in its own file (memory.cpp, cpu.cpp, cpuset.cpp,
// pids.cpp, io.cpp, hugetlb.cpp, with its tests beside it): which linux.resources fields need it (the host
// check), the interface files those fields become (the plan), how the kernel prints each of them back (the
// read back), and its usage counters (stats). The operations (resources_check.cpp, limits.cpp,
// limit_readback.cpp, stats.cpp) walk the table; adding a controller is its file and test, its line in
// controller_table.cpp and their names in meson.build.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "cgroup/limit_readback.hpp"
#include "cgroup/limits.hpp"
#include "cgroup/resources_check.hpp"
#include "cgroup/stats.hpp"
#include "husk/error.hpp"
#include "husk/spec.hpp"

namespace husk::cgroup {

inline constexpr const char* resources_prefix = "linux.resources.";

// "linux.resources.<field>: <why>", for a field husk refuses.
std::unexpected<Error> refuse(const std::string& field, std::string_view why);

// Collects host-check requests in the order config-linux.md lists the fields.
class Requests {
public:
    void add(const std::string& field, const char* controller) {
        list_.push_back({resources_prefix + field, controller, false});
    }
    template <typename T>
    void add_if(const std::optional<T>& value, const std::string& field, const char* controller) {
        if (value) add(field, controller);
    }
    void add_v1_only(const std::string& field) { list_.push_back({resources_prefix + field, "", true}); }
    std::vector<ResourceRequest> take() { return std::move(list_); }

private:
    std::vector<ResourceRequest> list_;
};

// Collects the writes plan_limits returns, and answers what the target cgroup offers.
class Writes {
public:
    explicit Writes(const LimitOptions& options) : options_(options) {}
    void add(const std::string& field, const char* controller, std::string file, std::string value) {
        list_.push_back({resources_prefix + field, controller, std::move(file), std::move(value), false});
    }
    void add_verbatim(const std::string& field, std::string controller, std::string file, std::string value) {
        list_.push_back({resources_prefix + field, std::move(controller), std::move(file), std::move(value), true});
    }
    bool has_file(std::string_view file) const { return !options_.has_file || options_.has_file(file); }
    bool has_controller(const std::string& name) const;
    bool probing() const { return static_cast<bool>(options_.has_file); }
    const LimitOptions& options() const { return options_; }
    std::vector<LimitWrite> take() { return std::move(list_); }

private:
    const LimitOptions& options_;
    std::vector<LimitWrite> list_;
};

struct Controller {
    std::string_view name;  // "memory", as in cgroup.controllers
    // Appends a request for each field of `resources` that needs this controller (nothing: another
    // controller's listing names them, in the spec's order).
    void (*list_requests)(const spec::Resources& resources, Requests& out);
    // Appends the writes for those fields, in a working order; refuses what cgroup v2 cannot honour.
    Result<void> (*plan)(const spec::Resources& resources, Writes& out);
    // Compares a file of this controller as written and as read (see limit_readback.hpp); nothing when `file`
    // is none of its files.
    std::optional<Readback> (*compare)(std::string_view file, std::string_view written, std::string_view read,
                                       std::size_t page_size);
    // Reads its counters into `stats`; a file that does not exist (controller not enabled) is skipped.
    Result<void> (*read_stats)(int dir_fd, const std::string& where, Stats& stats);
};

// Every controller husk supports, in the order their limits are planned and written.
std::span<const Controller* const> controller_table();

}  // namespace husk::cgroup
