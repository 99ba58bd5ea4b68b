#include "monitor/verdict.hpp"

#include <csignal>
#include <cstring>

#include "base/time.hpp"
#include "monitor/limits.hpp"

namespace husk::monitor {
namespace {

bool requested(const state::Record& record, const Enforced& enforced, int signal) {
    for (int s : record.kill_requests)
        if (s == signal) return true;
    if (signal == SIGKILL && record.force_deleted) return true;
    return signal >= 1 && signal <= 64 && (enforced.forwarded & (std::uint64_t{1} << (signal - 1))) != 0;
}

// Who sent it: recorded by `husk kill` or `delete --force`, or forwarded by `husk run` in the foreground.
std::string sender(const state::Record& record, int signal) {
    bool by_kill = false;
    for (int s : record.kill_requests)
        if (s == signal) by_kill = true;
    bool by_delete = signal == SIGKILL && record.force_deleted;
    if (by_kill && by_delete) return "husk kill and husk delete --force";
    if (by_kill) return "husk kill";
    if (by_delete) return "husk delete --force";
    return "husk run (forwarded)";
}

// The first limit the monitor enforced, in the stop-reasons table's order.
const Limit* first_enforced(const Enforced& enforced) {
    for (const StopReason& entry : stop_reasons())
        if (enforced.fired(entry.reason))
            if (const Limit* limit = find_limit(entry.name)) return limit;
    return nullptr;
}

}  // namespace

std::string format_duration(std::chrono::milliseconds duration) {
    auto ms = duration.count();
    if (ms == 0) return "0s";
    if (ms % 3600000 == 0) return std::to_string(ms / 3600000) + "h";
    if (ms % 60000 == 0) return std::to_string(ms / 60000) + "m";
    if (ms % 1000 == 0) return std::to_string(ms / 1000) + "s";
    if (ms < 1000) return std::to_string(ms) + "ms";
    std::string fraction = std::to_string(ms % 1000);
    fraction.insert(0, 3 - fraction.size(), '0');
    while (fraction.back() == '0') fraction.pop_back();
    return std::to_string(ms / 1000) + "." + fraction + "s";
}

std::string signal_label(int signal) {
    if (signal >= SIGRTMIN && signal <= SIGRTMAX) {
        if (signal == SIGRTMIN) return "SIGRTMIN";
        return "SIGRTMIN+" + std::to_string(signal - SIGRTMIN);
    }
    if (const char* name = ::sigabbrev_np(signal)) return std::string("SIG") + name;
    return "signal " + std::to_string(signal);
}

bool is_stop_request(int signal) {
    switch (signal) {
        case SIGHUP: case SIGINT: case SIGQUIT: case SIGTERM: case SIGKILL: return true;
        default: return false;
    }
}

std::string format_bytes(std::uint64_t bytes) {
    std::string exact = std::to_string(bytes) + " bytes";
    for (auto [unit, size] : {std::pair{"GiB", 1ull << 30}, std::pair{"MiB", 1ull << 20}, std::pair{"KiB", 1ull << 10}}) {
        if (bytes >= size && bytes % size == 0) return std::to_string(bytes / size) + unit + " (" + exact + ")";
    }
    return exact;
}

std::optional<int> limit_exit_status(std::string_view reason) {
    const StopReason* entry = find_stop_reason(reason);
    if (!entry || entry->limit_status == 0) return std::nullopt;
    return entry->limit_status;
}

bool exited_after_limit(const state::ExitRecord& exit) {
    return limit_exit_status(exit.reason) && exit.signal == 0 && exit.code >= 0;
}

int run_exit_status(const state::ExitRecord& exit) {
    if (exit.code < 0) return 255;
    if (exited_after_limit(exit)) return *limit_exit_status(exit.reason);
    return exit.code;
}

state::ExitRecord decide_exit(const ExitStatus& status, const state::Record& record,
                              const StopPolicy& policy, const CgroupFacts& facts) {
    state::ExitRecord exit;
    exit.finished = now_rfc3339_nano();
    exit.code = status.code;
    exit.signal = status.signal;
    const Enforced& enforced = status.enforced;
    if (!status.exec_error.empty()) {
        exit.reason = reason_name(Reason::setup_failed);
        exit.detail = status.exec_error;
    } else if (record.cause) {
        // The first limit recorded stays the reason, also when another fired while the container was dying.
        exit.reason = record.cause->reason;
        const Limit* limit = find_limit(record.cause->reason);
        exit.detail = limit ? limit->detail(policy, status, &*record.cause) : record.cause->detail;
    } else if (const Limit* limit = first_enforced(enforced)) {
        // The monitor enforced a limit but its cause is not in the record (the write failed, or the record was
        // deleted under `husk run`): the facts are the monitor's own.
        exit.reason = reason_name(limit->reason);
        exit.detail = limit->detail(policy, status, nullptr);
    } else if (!status.known) {
        exit.reason = reason_name(Reason::unknown);
        exit.detail = "init was not our child and the kernel did not report its exit status (PIDFD_INFO_EXIT)";
    } else if (status.signal == SIGKILL && facts.oom_kills > 0) {
        exit.reason = reason_name(Reason::oom);
        std::string kills = "oom_kill +" + std::to_string(facts.oom_kills);
        // With memory.max at "max" the pressure came from an ancestor's limit or the whole machine.
        if (!facts.memory_max.empty() && facts.memory_max != "max" && facts.memory_max_hits == 0)
            exit.detail = "killed by the kernel's OOM killer (" + kills + "; its own memory.max=" + facts.memory_max +
                          " was not reached: an ancestor's limit, such as its tenant's, or the machine's memory)";
        else if (!facts.memory_max.empty() && facts.memory_max != "max")
            exit.detail = "memory.max=" + facts.memory_max + " reached (" + kills + ")";
        else
            exit.detail = "killed by the kernel's OOM killer (" + kills + "; memory.max=" +
                          (facts.memory_max.empty() ? std::string("unknown") : facts.memory_max) + ")";
    } else if (status.signal == SIGKILL && enforced.caller_gone != 0) {
        exit.reason = reason_name(Reason::killed);
        exit.detail = "killed by SIGKILL: the caller (pid " + std::to_string(enforced.caller_gone) +
                      ") died, and --die-with-parent ends the container with it";
    } else if (status.signal == SIGKILL && enforced.cancel_killed) {
        exit.reason = reason_name(Reason::killed);
        exit.detail = "killed by SIGKILL: husk run forwarded " + signal_label(enforced.cancel_signal) +
                      " (cancel) and the container had not ended within the " + format_duration(policy.grace) +
                      " kill grace";
    } else if (status.signal != 0) {
        if (requested(record, enforced, status.signal)) {
            exit.reason = reason_name(Reason::killed);
            exit.detail = "killed by " + signal_label(status.signal) + " sent by " + sender(record, status.signal);
        } else {
            exit.reason = reason_name(Reason::signaled);
            exit.detail = "terminated by " + signal_label(status.signal) + " (signal " +
                          std::to_string(status.signal) + "), which husk did not send";
            // What the signal means, not who sent it: kill(2) can send it too (husk(8), VERDICT, factors).
            if (status.signal == SIGXFSZ)
                exit.detail += "; the kernel sends it to a process writing past its RLIMIT_FSIZE (--fsize)";
        }
    } else {
        exit.reason = reason_name(Reason::exited);
        exit.detail = "exit code " + std::to_string(status.code);
        // A workload that handles SIGTERM and exits stopped because it was asked to.
        for (int signal = 1; signal <= 64; ++signal) {
            if (!is_stop_request(signal) || !requested(record, enforced, signal)) continue;
            exit.reason = reason_name(Reason::killed);
            exit.detail = "exited with code " + std::to_string(status.code) + " after " + sender(record, signal) +
                          " sent " + signal_label(signal);
            break;
        }
    }
    // Said where the signal was seen: by husk-init, the program's parent, not by the monitor.
    if (status.signal_from_init && status.exec_error.empty())
        exit.detail += " (the program's end as husk-init reported it; husk-init exited with code " +
                       std::to_string(status.code) + ")";
    if (exited_after_limit(exit))
        exit.detail += "; the workload exited on its own with code " + std::to_string(exit.code) + " after the limit fired";
    return exit;
}

}  // namespace husk::monitor
