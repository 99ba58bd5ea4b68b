// A task's cgroup v2 counters as containerd's Stats wants them (io.containerd.cgroups.v2.Metrics), from husk's
// own reading of the cgroup (cgroup/stats.hpp) and the few files runc's events leave out (swap, memory.events).
#pragma once

#include <string>

#include "husk/error.hpp"
#include "ttrpc/metrics.hpp"

namespace husk::shim {

Result<ttrpc::Metrics> read_metrics(int cgroup_dir, const std::string& where);

}  // namespace husk::shim
