#include "monitor/stop_reasons.hpp"

#include <array>

namespace husk::monitor {
namespace {

constexpr std::array<StopReason, 12> table{{
    {Reason::exited, "exited", 0, "",
     "the process exited by itself (`detail`: `exit code N`)"},
    {Reason::signaled, "signaled", 0, "",
     "it died of a signal husk did not send"},
    {Reason::killed, "killed", 0, "",
     "it died of a signal `husk kill` / `delete --force` recorded before sending (or `husk "
     "run` forwarded), or exited after such a stop signal (HUP, INT, QUIT, TERM, KILL); also a "
     "cancelled `husk run`: killed when it had not ended within the kill grace after the first "
     "stop request forwarded, or whose --die-with-parent caller died"},
    {Reason::timeout, "timeout", 124, "timeout",
     "the wall-time limit fired; the cause is recorded in `state.json` (`cause`) before the "
     "first signal and kept whatever the exit"},
    {Reason::cpu_limit, "cpu-limit", 123, "cpu-limit",
     "the cgroup used up its CPU budget (`run.husk.cpu-limit`); the cause is recorded before "
     "the kill and kept whatever the exit"},
    {Reason::output_limit, "output-limit", 122, "output-limit",
     "stdout+stderr went past the output cap (`run.husk.output-limit`); the cause is recorded "
     "before the kill and kept whatever the exit"},
    {Reason::oom, "oom", 0, "oom",
     "init died of SIGKILL and `memory.events` `oom_kill` rose while the monitor watched "
     "(detail names `memory.max`); only with a memory controller"},
    {Reason::setup_failed, "setup-failed", 0, "",
     "execve or a startContainer hook failed after start (detail = the error); in a `husk run "
     "--verdict`, also any failure after the config was accepted and before the program ran"},
    {Reason::unknown, "unknown", 0, "",
     "stored: the monitor watched through a pidfd and the kernel gave no `PIDFD_INFO_EXIT`. "
     "Computed on read, never stored: stopped, started, no exit recorded, and the monitor (pid "
     "+ start time) is gone (a recorded `cause` wins: `timeout`)"},
    {Reason::refused, "refused", 0, "",
     "only in a `husk run --verdict`: husk refused the flags or the config before anything "
     "existed (detail = the error); never in a record"},
    {Reason::tenant_quota, "tenant-quota", 0, "",
     "only in a `husk run --verdict`: the run's tenant (`--tenant`, `run.husk.tenant`) has used up a ceiling "
     "(runs, concurrent runs, CPU, wall time or output), so husk refused it before anything existed (detail = "
     "what was used); never in a record"},
    {Reason::network_limit, "network-limit", 121, "network-limit",
     "an operation went past the network-operation budget (`run.husk.net-ops` with `run.husk.net-ops-kill`): "
     "the monitor saw the counter past the budget, recorded the cause and killed the container; the operation "
     "itself had failed with EPERM"},
}};

constexpr bool in_enum_order() {
    for (std::size_t i = 0; i < table.size(); ++i)
        if (static_cast<std::size_t>(table[i].reason) != i) return false;
    return true;
}
static_assert(in_enum_order(), "stop_reason() indexes the table by Reason");

}  // namespace

std::span<const StopReason> stop_reasons() { return table; }

const StopReason& stop_reason(Reason reason) { return table[static_cast<std::size_t>(reason)]; }

const StopReason* find_stop_reason(std::string_view name) {
    for (const StopReason& entry : table)
        if (entry.name == name) return &entry;
    return nullptr;
}

}  // namespace husk::monitor
