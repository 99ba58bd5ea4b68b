#include "monitor/stop_reasons.hpp"

#include <array>

namespace husk::monitor {
namespace {

constexpr std::array<StopReason, 9> table{{
    {Reason::exited, "exited", 0, "", "the process exited by itself (detail: `exit code N`)"},
    {Reason::signaled, "signaled", 0, "", "it died of a signal husk did not send"},
    {Reason::killed, "killed", 0, "",
     "it died of a signal `husk kill` / `delete --force` recorded before sending (or `husk run` forwarded), or "
     "exited after such a stop signal (HUP, INT, QUIT, TERM, KILL)"},
    {Reason::timeout, "timeout", 124, "timeout", "the wall-time limit (run.husk.timeout) fired"},
    {Reason::cpu_limit, "cpu-limit", 123, "cpu-limit",
     "the cgroup used up its CPU budget (run.husk.cpu-limit); the container was killed"},
    {Reason::output_limit, "output-limit", 122, "output-limit",
     "stdout+stderr went past the output cap (run.husk.output-limit); the container was killed"},
    {Reason::oom, "oom", 0, "oom",
     "init died of SIGKILL and memory.events oom_kill rose while the monitor watched"},
    {Reason::setup_failed, "setup-failed", 0, "", "execve or a startContainer hook failed after start"},
    {Reason::unknown, "unknown", 0, "", "the exit status is not known (no PIDFD_INFO_EXIT, or the monitor was lost)"},
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
