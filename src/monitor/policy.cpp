#include "monitor/policy.hpp"

namespace husk::monitor {

StopPolicy stop_policy(const spec::HuskAnnotations& annotations) {
    StopPolicy policy;
    policy.timeout = annotations.timeout;
    if (annotations.kill_grace) policy.grace = *annotations.kill_grace;
    if (annotations.stop_signal) policy.stop_signal = *annotations.stop_signal;
    policy.output_limit = annotations.output_limit;
    policy.cpu_limit = annotations.cpu_limit;
    policy.net_ops = annotations.net_ops;
    policy.net_ops_kill = annotations.net_ops_kill;
    return policy;
}

}  // namespace husk::monitor
