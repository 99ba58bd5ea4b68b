// The controllers husk supports. The order is the order of the host check's requests and of the writes
// (cpuset after cpu, as config-linux.md lists cpus and mems under cpu).
#include <algorithm>

#include "cgroup/controller.hpp"

namespace husk::cgroup {

// Each defined in its own file (memory.cpp, ...).
extern const Controller memory_controller, cpu_controller, cpuset_controller, pids_controller, io_controller,
    hugetlb_controller;

std::span<const Controller* const> controller_table() {
    static const Controller* const table[] = {&memory_controller, &cpu_controller,     &cpuset_controller,
                                              &pids_controller,   &io_controller,      &hugetlb_controller};
    return table;
}

std::unexpected<Error> refuse(const std::string& field, std::string_view why) {
    return fail_msg(resources_prefix + field + ": " + std::string(why));
}

bool Writes::has_controller(const std::string& name) const {
    return !options_.has_file ||
           std::find(options_.controllers.begin(), options_.controllers.end(), name) != options_.controllers.end();
}

}  // namespace husk::cgroup
