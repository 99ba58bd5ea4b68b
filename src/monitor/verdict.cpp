#include "monitor/verdict.hpp"

#include <cstring>

#include "base/time.hpp"

namespace husk::monitor {
namespace {

std::string timeout_reached(const StopPolicy& policy) {
    return "wall-time limit " + (policy.timeout ? format_duration(*policy.timeout) : std::string("?")) + " reached";
}

// What actually happened after the deadline, from the monitor's own record of its actions.
std::string timeout_outcome(const StopPolicy& policy, const Enforced& enforced) {
    std::string text = timeout_reached(policy);
    std::string grace = format_duration(policy.grace);
    if (enforced.stop_signal_sent && enforced.killed)
        return text + "; sent " + signal_label(policy.stop_signal) + ", killed after the " + grace + " grace";
    if (enforced.stop_signal_sent) return text + "; sent " + signal_label(policy.stop_signal) +
                                          ", init ended within the " + grace + " grace";
    if (enforced.killed)
        return text + (policy.grace.count() == 0 ? "; killed at once (kill-grace 0)" : "; killed");
    return text + "; init ended before husk signalled it";
}

bool requested(const state::Record& record, const Enforced& enforced, int signal) {
    for (int s : record.kill_requests)
        if (s == signal) return true;
    return signal >= 1 && signal <= 64 && (enforced.forwarded & (std::uint64_t{1} << (signal - 1))) != 0;
}

// Who sent it: recorded by `husk kill`/`delete --force`, or forwarded by `husk run` in the foreground.
std::string sender(const state::Record& record, int signal) {
    for (int s : record.kill_requests)
        if (s == signal) return "husk kill";
    return "husk run (forwarded)";
}

// The first limit the monitor enforced, in the table's order (the wall-time limit is decided before this).
const StopReason* first_enforced(const Enforced& enforced) {
    for (const StopReason& entry : stop_reasons())
        if (entry.limit_status != 0 && enforced.fired(entry.reason)) return &entry;
    return nullptr;
}

// A limit's verdict when its cause never reached the record: what the monitor knows without it.
std::string unrecorded_detail(Reason limit, const StopPolicy& policy) {
    switch (limit) {
        case Reason::cpu_limit:
            return "CPU budget " +
                   format_duration(std::chrono::duration_cast<std::chrono::milliseconds>(
                       policy.cpu_limit.value_or(std::chrono::microseconds(0)))) +
                   " used up; killing the container";
        case Reason::output_limit: return output_limit_cause(policy).detail;
        default: return std::string(stop_reason(limit).doc);
    }
}

}  // namespace

StopPolicy stop_policy(const spec::HuskAnnotations& annotations) {
    StopPolicy policy;
    policy.timeout = annotations.timeout;
    if (annotations.kill_grace) policy.grace = *annotations.kill_grace;
    if (annotations.stop_signal) policy.stop_signal = *annotations.stop_signal;
    policy.output_limit = annotations.output_limit;
    policy.cpu_limit = annotations.cpu_limit;
    return policy;
}

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

state::StopCause timeout_cause(const StopPolicy& policy) {
    state::StopCause cause;
    cause.reason = reason_name(Reason::timeout);
    cause.detail = timeout_reached(policy) + (policy.grace.count() == 0
                                                  ? "; killing at once (kill-grace 0)"
                                                  : "; sending " + signal_label(policy.stop_signal) +
                                                        ", killing after a " + format_duration(policy.grace) + " grace");
    cause.at = now_rfc3339_nano();
    return cause;
}

std::string format_bytes(std::uint64_t bytes) {
    std::string exact = std::to_string(bytes) + " bytes";
    for (auto [unit, size] : {std::pair{"GiB", 1ull << 30}, std::pair{"MiB", 1ull << 20}, std::pair{"KiB", 1ull << 10}}) {
        if (bytes >= size && bytes % size == 0) return std::to_string(bytes / size) + unit + " (" + exact + ")";
    }
    return exact;
}

state::StopCause output_limit_cause(const StopPolicy& policy) {
    state::StopCause cause;
    cause.reason = reason_name(Reason::output_limit);
    cause.detail = "stdout+stderr went past the output limit " + format_bytes(policy.output_limit.value_or(0)) +
                   "; delivered up to the limit, killing the container";
    cause.at = now_rfc3339_nano();
    return cause;
}

state::StopCause cpu_limit_cause(const StopPolicy& policy, std::chrono::microseconds used) {
    auto ms = [](std::chrono::microseconds us) {
        return format_duration(std::chrono::duration_cast<std::chrono::milliseconds>(us));
    };
    state::StopCause cause;
    cause.reason = reason_name(Reason::cpu_limit);
    cause.detail = "CPU budget " + ms(policy.cpu_limit.value_or(std::chrono::microseconds(0))) + " used up (cpu.stat usage_usec +" +
                   std::to_string(used.count()) + " since start); killing the container";
    cause.at = now_rfc3339_nano();
    return cause;
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
    } else if (record.cause && record.cause->reason != reason_name(Reason::timeout)) {
        // The first limit recorded stays the reason, also when the wall-time limit fired while it was dying.
        exit.reason = record.cause->reason;
        exit.detail = record.cause->detail;
    } else if (enforced.fired(Reason::timeout) || record.cause) {
        exit.reason = reason_name(Reason::timeout);
        exit.detail = enforced.fired(Reason::timeout) ? timeout_outcome(policy, enforced) : record.cause->detail;
        if (!status.known) exit.detail += "; the kernel did not report init's exit status (no PIDFD_INFO_EXIT)";
    } else if (const StopReason* limit = first_enforced(enforced)) {
        // The monitor enforced a limit but its cause is not in the record (the write failed, or the record was
        // deleted under `husk run`): the facts are the monitor's own.
        exit.reason = limit->name;
        exit.detail = unrecorded_detail(limit->reason, policy);
    } else if (!status.known) {
        exit.reason = reason_name(Reason::unknown);
        exit.detail = "init was not our child and the kernel did not report its exit status (PIDFD_INFO_EXIT)";
    } else if (status.signal == SIGKILL && facts.oom_kills > 0) {
        exit.reason = reason_name(Reason::oom);
        std::string kills = "oom_kill +" + std::to_string(facts.oom_kills);
        // With memory.max at "max" the pressure came from an ancestor's limit or the whole machine.
        if (!facts.memory_max.empty() && facts.memory_max != "max")
            exit.detail = "memory.max=" + facts.memory_max + " reached (" + kills + ")";
        else
            exit.detail = "killed by the kernel's OOM killer (" + kills + "; memory.max=" +
                          (facts.memory_max.empty() ? std::string("unknown") : facts.memory_max) + ")";
    } else if (status.signal != 0) {
        if (requested(record, enforced, status.signal)) {
            exit.reason = reason_name(Reason::killed);
            exit.detail = "killed by " + signal_label(status.signal) + " sent by " + sender(record, status.signal);
        } else {
            exit.reason = reason_name(Reason::signaled);
            exit.detail = "terminated by " + signal_label(status.signal) + " (signal " +
                          std::to_string(status.signal) + "), which husk did not send";
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
    if (exited_after_limit(exit))
        exit.detail += "; the workload exited on its own with code " + std::to_string(exit.code) + " after the limit fired";
    return exit;
}

}  // namespace husk::monitor
