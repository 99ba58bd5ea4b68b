#include "cgroup/resources_check.hpp"

#include <algorithm>
#include <cerrno>
#include <string_view>

#include "base/fs.hpp"
#include "cgroup/controller.hpp"
#include "cgroup/hierarchy.hpp"
#include "cgroup/unified.hpp"

namespace husk::cgroup {
namespace {

// linux.resources.unified keys are v2 interface files: "<controller>.<knob>", or one of the two core limits.
Result<void> list_unified(const std::map<std::string, std::string>& unified, Requests& out) {
    for (const auto& [key, value] : unified) {
        std::string controller = TRY(unified_key_controller(key));
        out.add("unified[\"" + key + "\"]", controller.c_str());
    }
    return {};
}

// /proc/cgroups: "name hierarchy num_cgroups enabled"; hierarchy 0 means v2 (or unmounted).
std::vector<std::string> read_v1_bound() {
    std::vector<std::string> bound;
    auto text = read_file("/proc/cgroups");
    if (!text) return bound;  // the file is optional; without it we cannot tell, and say less
    for (std::string_view rest = *text; !rest.empty();) {
        const std::size_t end = std::min(rest.find('\n'), rest.size());
        const std::vector<std::string> f = split_words(rest.substr(0, end));
        rest.remove_prefix(std::min(end + 1, rest.size()));
        if (f.size() < 4 || f[0].starts_with('#') || f[1] == "0" || f[3] != "1") continue;
        if (f[0] == "blkio") bound.push_back("io");  // the v1 name of io
        else bound.push_back(f[0]);
    }
    return bound;
}

}  // namespace

Result<std::vector<ResourceRequest>> list_resource_requests(const spec::Resources& resources) {
    Requests out;
    for (const Controller* controller : controller_table())
        if (controller->list_requests) controller->list_requests(resources, out);
    if (resources.has_network) out.add_v1_only("network");
    if (resources.has_rdma) out.add("rdma", "rdma");
    TRY(list_unified(resources.unified, out));
    return out.take();
}

Result<ControllerFacts> read_controller_facts(const std::string& mount) {
    ControllerFacts facts;
    facts.mount = mount;
    facts.consulted = mount + "/cgroup.controllers";
    facts.available = split_words(TRY(read_file(facts.consulted)));
    facts.bound_to_v1 = read_v1_bound();
    return facts;
}

Result<void> check_resource_requests(const std::vector<ResourceRequest>& requests, const ControllerFacts& facts) {
    for (const ResourceRequest& r : requests) {
        if (r.v1_only)
            return fail_msg(r.field + ": net_cls and net_prio are cgroup v1 controllers; husk does not write cgroup v1");
        if (r.controller.empty() || list_contains(facts.available, r.controller)) continue;
        bool v1 = list_contains(facts.bound_to_v1, r.controller);
        std::string why = v1 ? "host is hybrid: " + r.controller + " is bound to cgroup v1" : "not listed in " + facts.consulted;
        return fail_msg(r.field + ": the " + r.controller + " controller is not available in the cgroup v2 " +
                        "hierarchy at " + facts.mount + " (" + why + ")" + (v1 ? "; husk does not write cgroup v1" : ""));
    }
    return {};
}

Result<void> check_no_resource_requests(const std::vector<ResourceRequest>& requests, std::string_view no_cgroup) {
    if (requests.empty()) return {};
    return fail_msg(requests.front().field + ": resource limits need a cgroup, but " + std::string(no_cgroup));
}

}  // namespace husk::cgroup
