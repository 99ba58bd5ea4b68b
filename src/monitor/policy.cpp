#include "monitor/policy.hpp"

namespace husk::monitor {

StopPolicy stop_policy(const spec::HuskSettings& settings) {
    StopPolicy policy;
    policy.timeout = settings.timeout;
    if (settings.kill_grace) policy.grace = *settings.kill_grace;
    if (settings.stop_signal) policy.stop_signal = *settings.stop_signal;
    policy.output_limit = settings.output_limit;
    policy.cpu_limit = settings.cpu_limit;
    policy.net_ops = settings.net_ops;
    policy.net_ops_kill = settings.net_ops_kill.value_or(false);
    return policy;
}

}  // namespace husk::monitor
