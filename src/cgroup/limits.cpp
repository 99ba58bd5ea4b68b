// plan_limits: runtime-spec 1.3.0 linux.resources (config-linux.md "Control groups") → cgroup v2 interface
// files (Documentation/admin-guide/cgroup-v2.rst), controller by controller (controller.hpp), then what no
// controller serves. Where the spec speaks cgroup v1, the conversions are the ones runc uses, so a config
// means the same under husk as under runc. A field v2 cannot honour is an error (fail closed), never
// silently dropped.
#include "cgroup/limits.hpp"

#include <algorithm>

#include "base/quote.hpp"
#include "cgroup/controller.hpp"
#include "cgroup/unified.hpp"

namespace husk::cgroup {
namespace {

// unified keys are file names in the container's cgroup, written verbatim (config-linux.md "Unified"): only
// files of a controller enabled for that cgroup, and the two core limits (see unified.hpp).
Result<void> plan_unified(const std::map<std::string, std::string>& unified, Writes& out) {
    for (const auto& [key, value] : unified) {
        std::string controller = TRY(unified_key_controller(key));
        std::string field = "unified[" + quoted(key) + "]";
        if (!out.has_file(key)) return refuse(field, "not an interface file of cgroup " + out.options().where);
        if (!controller.empty() && !out.has_controller(controller))
            return refuse(field, "the " + controller + " controller is not enabled for cgroup " + out.options().where +
                                     " (not in its cgroup.controllers)");
        out.add_verbatim(field, controller, key, value);
    }
    return {};
}

}  // namespace

Result<std::vector<LimitWrite>> plan_limits(const spec::Resources& resources, const LimitOptions& options) {
    Writes out(options);
    for (const Controller* controller : controller_table()) TRY(controller->plan(resources, out));
    if (resources.has_network)
        return refuse("network", "net_cls and net_prio are cgroup v1 controllers; husk does not write cgroup v1");
    if (resources.has_rdma) return refuse("rdma", "rdma limits are not supported by this husk build");
    TRY(plan_unified(resources.unified, out));
    return out.take();
}

std::vector<std::string> needed_controllers(const std::vector<LimitWrite>& writes) {
    std::vector<std::string> out;
    for (const LimitWrite& w : writes)
        if (!w.controller.empty() && std::find(out.begin(), out.end(), w.controller) == out.end())
            out.push_back(w.controller);
    return out;
}

}  // namespace husk::cgroup
