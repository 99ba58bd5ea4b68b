// husk's own limits (docs/husk.8.md, "LIMITS": run.husk.timeout, run.husk.cpu-limit, run.husk.output-limit), in one
// list (limits.cpp). A limit is an entry of the stop-reasons table (its name, `husk run`'s status, its event) and a
// watcher in the monitor's loop that records the cause before it acts (docs/ARCHITECTURE.md, "The monitor") and then
// kills.
#pragma once

#include <sys/types.h>

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "cgroup/cgroup.hpp"
#include "husk/error.hpp"
#include "monitor/output_limit.hpp"
#include "monitor/policy.hpp"
#include "monitor/wait.hpp"
#include "state/record.hpp"

namespace husk::monitor {

// What a limit's watcher may do to the container it watches.
class Enforcer {
public:
    Enforcer(MonitorPlan plan, pid_t init, int pidfd) : plan_(std::move(plan)), init_(init), pidfd_(pidfd) {}
    const StopPolicy& policy() const { return plan_.policy; }
    const MonitorPlan& plan() const { return plan_; }
    int pidfd() const { return pidfd_; }
    // Durable before the first signal (write_record fsyncs and renames), so the verdict survives the monitor. A
    // cause recorded first (a timeout, then output past the cap while dying) stays.
    void record_cause(const state::StopCause& cause) const;
    // cgroup.kill takes every process, also those that left init's tree; without a cgroup, SIGKILL to init (in
    // its own pid namespace that ends every process in it; pid_namespaces(7)).
    void kill() const;

private:
    MonitorPlan plan_;
    pid_t init_;
    int pidfd_;
};

// What a limit's watcher is made from: the enforcer, and the output plumbing opened before init was cloned.
struct LimitSetup {
    std::shared_ptr<const Enforcer> enforcer;
    std::optional<OutputPlumbing>& output;
};

struct Limit {
    Reason reason;  // its entry in the stop-reasons table
    // Before the container exists, its cgroup made: refuses what this host cannot enforce (fail closed). May be null.
    Result<void> (*check)(const StopPolicy& policy, const cgroup::Cgroup* cgroup, std::string_view no_cgroup);
    // Its watcher, or nothing when the policy does not set this limit.
    std::unique_ptr<Watcher> (*watch)(LimitSetup& setup);
    // husk.exit.detail when this limit is the reason: `recorded` is its cause in the record, nothing when the
    // monitor enforced it but the cause never got there (the write failed, the record was deleted).
    std::string (*detail)(const StopPolicy& policy, const ExitStatus& status, const state::StopCause* recorded);
};

std::span<const Limit> limits();
// Nothing for a reason that is not one of the limits.
const Limit* find_limit(std::string_view reason);

// Every check of the limits the policy sets. `no_cgroup` says why a container without a cgroup has none
// (cgroup::no_cgroup_reason), for the error of a limit that needs one.
Result<void> check_limits(const StopPolicy& policy, const cgroup::Cgroup* cgroup, std::string_view no_cgroup);

// What the monitor enforces while it waits, added to `options`: a watcher per limit the policy sets (the
// output cap's pump takes the plumbing's read ends; the write ends, init's now, are closed here).
void add_limits(const MonitorPlan& plan, pid_t init, int pidfd, std::optional<OutputPlumbing> output,
                WaitOptions& options);

}  // namespace husk::monitor
