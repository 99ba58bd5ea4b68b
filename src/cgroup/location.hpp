// Where a container's cgroup is: the cgroup v2 mount and the path below its root. state.json keeps the two
// as cgroupMount and cgroupPath; everything that reads or acts on the cgroup takes them together.
#pragma once

#include <string>

namespace husk::cgroup {

struct CgroupLocation {
    std::string mount;  // the v2 mount point: "/sys/fs/cgroup/unified"
    std::string path;   // relative to the v2 root, in absolute form: "/husk/<id>"

    // The directory, as errors name it: "/sys/fs/cgroup/unified/husk/c1".
    std::string where() const { return mount + path; }
};

}  // namespace husk::cgroup
