// linux.resources fields that need a cgroup controller, and the host check (fail closed): husk never writes
// cgroup v1, so a field whose controller the v2 hierarchy does not offer is an error that names the field,
// the controller and why (on a hybrid host: bound to cgroup v1).
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
    std::string consulted;                  // the cgroup.controllers file read (the root's)
    std::vector<std::string> available;     // its content
    std::vector<std::string> bound_to_v1;   // v2 names of controllers mounted on a v1 hierarchy
};

// Pure: every field set in resources, in spec order. Empty objects ("memory": {}) ask for nothing.
Result<std::vector<ResourceRequest>> list_resource_requests(const spec::Resources& resources);

// Reads cgroup.controllers of the v2 root (what the hierarchy offers: husk hands each controller down to the
// leaf's parent itself, so a parent that does not list it yet is no obstacle) and /proc/cgroups (a non-zero
// hierarchy id = bound to v1).
Result<ControllerFacts> read_controller_facts(const std::string& mount);

// Pure: the error for the first request whose controller is not in facts.available (or that is v1 only);
// success when every request can be served.
Result<void> check_resource_requests(const std::vector<ResourceRequest>& requests, const ControllerFacts& facts);

// Pure: with --cgroup-manager=disabled, any request is an error.
Result<void> check_no_resource_requests(const std::vector<ResourceRequest>& requests, std::string_view no_cgroup);

}  // namespace husk::cgroup
