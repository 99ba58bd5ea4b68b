// linux.resources fields that need a cgroup controller, and the refusal of each (fail closed): husk does
// not write resource limits yet, and never writes cgroup v1, so every limit requested is an error that names
// the field, the controller and why (missing from the v2 hierarchy on a hybrid host, or not supported).
#pragma once

#include <string>
#include <vector>

#include "husk/error.hpp"
#include "husk/spec.hpp"

namespace husk::cgroup {

// One field that asks for something: "linux.resources.memory.limit" needs the "memory" controller.
struct ResourceRequest {
    std::string field;
    std::string controller;  // v2 name ("memory", "io", "cpuset"); "" = cgroup core files (unified "cgroup.*")
    bool v1_only = false;    // linux.resources.network: net_cls/net_prio exist only on cgroup v1
};

// What the host offers where the container's cgroup would be.
struct ControllerFacts {
    std::string mount;                      // "/sys/fs/cgroup/unified"
    std::string consulted;                  // the cgroup.controllers file read
    std::vector<std::string> available;     // its content
    std::vector<std::string> bound_to_v1;   // v2 names of controllers mounted on a v1 hierarchy
};

// Pure: every field set in resources, in spec order. Empty objects ("memory": {}) ask for nothing.
Result<std::vector<ResourceRequest>> list_resource_requests(const spec::Resources& resources);

// Reads cgroup.controllers of the nearest existing ancestor of path (the leaf's parent once it exists)
// and /proc/cgroups (a non-zero hierarchy id = bound to v1).
Result<ControllerFacts> read_controller_facts(const std::string& mount, const std::string& path);

// Pure: the error for the first request, or success when there is none.
Result<void> check_resource_requests(const std::vector<ResourceRequest>& requests, const ControllerFacts& facts);

// Pure: with --cgroup-manager=disabled, any request is an error.
Result<void> check_no_resource_requests(const std::vector<ResourceRequest>& requests);

}  // namespace husk::cgroup
