#include "frontend/verdict_reader.hpp"

#include <poll.h>

#include <cerrno>
#include <string>

#include "monitor/verdict.hpp"
#include "state/process_identity.hpp"

namespace husk::frontend {

using monitor::exited_after_limit;
using monitor::reason_name;
using monitor::Reason;
namespace {

// What the monitor left in monitor-error: its message, or, when the filesystem had no room even for that,
// where the message went.
std::string unwritten_exit(const std::string& monitor_error) {
    if (!monitor_error.empty()) return monitor_error;
    return "the monitor could not record the exit (state filesystem full?); the system log has its error";
}

}  // namespace

void await_verdict(const state::Record& record) {
    auto monitor = state::open_live_pidfd(record.monitor_pid, record.monitor_start_time, record.boot_id);
    if (!monitor) return;
    pollfd exited{monitor->get(), POLLIN, 0};
    while (::poll(&exited, 1, 2000) < 0 && errno == EINTR) {
    }
}

bool monitor_alive(const state::Record& record) {
    return state::open_live_pidfd(record.monitor_pid, record.monitor_start_time, record.boot_id).has_value();
}

bool exit_known(const state::Record& record, std::string_view status) {
    if (record.exit) return true;
    if (status == "stopped" && record.creator_pid != 0) return true;
    return status == "stopped" && !record.started.empty() && !monitor_alive(record);
}

void write_exit_members(JsonWriter& w, const state::Record& record) {
    if (record.exit) {
        w.key("code").integer(record.exit->code);
        w.key("signal").integer(record.exit->signal);
        w.key("reason").string(record.exit->reason);
        w.key("detail").string(record.exit->detail);
        // Said plainly, for whoever reads the code 0 next to a limit's reason (husk run exits 122-124 then).
        if (exited_after_limit(*record.exit)) w.key("exitedAfterLimit").boolean(true);
    } else if (record.creator_pid != 0) {
        // Observed: the create process is gone and never committed. Nothing ran the workload.
        w.key("reason").string(reason_name(Reason::setup_failed));
        w.key("detail").string("husk create (pid " + std::to_string(record.creator_pid) +
                               ") ended before the container was created; delete removes what it left");
    } else if (record.cause) {
        // Init is gone and nobody recorded how: the monitor was lost (killed, or the machine rebooted), or it
        // could not write. A cause it recorded before signalling (timeout) still holds; the exit status itself
        // is unknown.
        w.key("reason").string(record.cause->reason);
        w.key("detail").string(record.cause->detail + "; " +
                               (record.monitor_error ? unwritten_exit(*record.monitor_error)
                                                     : "the monitor was lost before it recorded init's exit"));
    } else {
        // With --die-with-parent the kernel killed init when the monitor died (PR_SET_PDEATHSIG), but nobody saw
        // it happen: how init ended stays unknown, and is not guessed.
        w.key("reason").string(reason_name(Reason::unknown));
        w.key("detail").string(record.monitor_error
                                   ? unwritten_exit(*record.monitor_error)
                                   : std::string("the monitor did not record the exit (it was killed, or the host "
                                                 "rebooted)") +
                                         (record.die_with_parent ? "; with --die-with-parent init dies with it"
                                                                 : ""));
    }
}

void write_stopped_members(JsonWriter& w, const std::optional<state::Record>& record) {
    if (!record) {
        w.key("reason").string(reason_name(Reason::unknown));
        w.key("detail").string("the container was deleted before its exit was recorded");
        return;
    }
    if (!record->exit && monitor_alive(*record)) {
        w.key("reason").string(reason_name(Reason::unknown));
        w.key("detail").string("the monitor had not recorded the exit 2 s after init ended");
        return;
    }
    // The verdict, or what `state` says when the monitor was lost.
    write_exit_members(w, *record);
    if (record->exit) {
        w.key("finished").string(record->exit->finished);
        state::write_factors(w, record->exit->factors);
        state::write_usage(w, record->exit->usage);
    }
}

}  // namespace husk::frontend
