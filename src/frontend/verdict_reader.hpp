// The one reader of the monitor's verdict (`husk state`, the `stopped` line of `husk events`): it waits briefly
// for a monitor that is about to write it, and says what can still be said when there is none.
#pragma once

#include <optional>
#include <string_view>

#include "base/json_writer.hpp"
#include "husk/error.hpp"
#include "state/record.hpp"

namespace husk::frontend {

// Init has gone and `record` holds no verdict: a live monitor is reading the counters and writes it next, then
// exits. Waits for that exit, at most 2 s. The caller then reads the record again, also when the monitor was
// gone already: it may have written the verdict and exited between the caller's read and this look (a gone
// monitor is otherwise taken as a lost one).
void await_verdict(const state::Record& record);

// Whether the monitor named in the record (pid + start time) still lives.
bool monitor_alive(const state::Record& record);

// Whether there is a husk.exit to print: the monitor's verdict, or, for a container that stopped after start
// and whose monitor is gone without recording one, what can still be said (a recorded cause, or `unknown`).
bool exit_known(const state::Record& record, std::string_view status);
// husk.exit's members, into the object the caller opened: code, signal, reason, detail (and exitedAfterLimit);
// only reason and detail when there is no verdict. Call only when exit_known().
void write_exit_members(JsonWriter& w, const state::Record& record);
// The `stopped` line's data once init has ended and the verdict was awaited: husk.exit's members, finished,
// factors and usage; `unknown` when the record is gone (nothing) or the monitor lives but has not written it.
void write_stopped_members(JsonWriter& w, const std::optional<state::Record>& record);

}  // namespace husk::frontend
