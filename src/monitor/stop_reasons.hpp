// Why a container stopped, in one table: each reason's name (state.json's husk.exit.reason and cause.reason,
// `husk state`, `husk events`: a public interface, byte for byte), the exit status `husk run` derives from it,
// the `husk events` line it comes with, and one line saying when it is given. A new reason is an entry here
// plus, for a limit, its watcher (monitor/limits.cpp).
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace husk::monitor {

enum class Reason : std::uint8_t { exited, signaled, killed, timeout, cpu_limit, output_limit, oom, setup_failed, unknown, refused, tenant_quota,
                                     network_limit };

struct StopReason {
    Reason reason;
    std::string_view name;
    // The exit-status rule. 0: `husk run` exits with the code (128 + N after a signal, 255 when unknown). Else the
    // reason is one of husk's limits (the monitor records it as the cause before it acts), and a workload that
    // exited on its own after it fired makes `husk run` exit with this instead, so a limit never ends in 0:
    // timeout(1)'s 124, then the two below it; distinct from 0-2, 125-127, 128 + N and 255.
    int limit_status = 0;
    // The `husk events` line type when it happens; empty: it is told only by the `stopped` line.
    std::string_view event;
    std::string_view doc;  // when the reason is given (docs/ARCHITECTURE.md, husk(8) STATE)
};

// Every reason. The limits come in the order the verdict takes them in when the monitor enforced several and
// none reached the record.
std::span<const StopReason> stop_reasons();
const StopReason& stop_reason(Reason reason);
// Nothing for a name husk does not give (a record written by another version).
const StopReason* find_stop_reason(std::string_view name);
inline std::string_view reason_name(Reason reason) { return stop_reason(reason).name; }

// A factor: something that limited the container without stopping it (husk.exit.factors), with how often the
// kernel counted it. Forks refused at pids.max (pids.events max; also told by `husk events` as it happens);
// times the memory usage reached memory.max and the kernel reclaimed to stay below it (memory.events max);
// connects and sends the network policy refused (its BPF counter). Every one the kernel counts for husk: what
// it does not count (RLIMIT_NPROC's EAGAIN, a full /tmp, RLIMIT_AS's ENOMEM) is not a factor (husk(8), VERDICT).
inline constexpr std::string_view pids_limit_factor = "pids-limit";
inline constexpr std::string_view memory_limit_factor = "memory-limit";
inline constexpr std::string_view network_denied_factor = "network-denied";

}  // namespace husk::monitor
