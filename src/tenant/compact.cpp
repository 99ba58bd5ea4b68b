#include "tenant/compact.hpp"

#include <algorithm>

#include "tenant/account.hpp"

namespace husk::tenant {

std::vector<Record> compact_records(const std::vector<Record>& records, std::int64_t now_usec,
                                    const Ceilings& ceilings) {
    Account account = replay(records, now_usec, ceilings);
    const std::int64_t window = account.window_start_usec;
    const ResetRecord* last_reset = nullptr;
    for (const Record& record : records)
        if (const auto* reset = std::get_if<ResetRecord>(&record)) last_reset = reset;

    std::vector<Record> kept;
    if (last_reset) kept.push_back(*last_reset);
    SummaryRecord summary;
    bool summarised = false;
    // Adds a record that ended inside the window, without a period, to the one summary line.
    auto fold = [&](std::int64_t at, const Amounts& used) {
        summary.used.cpu_usec += used.cpu_usec;
        summary.used.wall_usec += used.wall_usec;
        summary.used.output_bytes += used.output_bytes;
        summary.at_usec = std::max(summary.at_usec, at);
        summarised = true;
    };
    for (const Record& record : records) {
        if (const auto* start = std::get_if<StartRecord>(&record)) {
            if (std::find(account.live.begin(), account.live.end(), *start) != account.live.end()) {
                kept.push_back(*start);
            } else if (start->at_usec >= window) {
                if (ceilings.period_usec) kept.push_back(*start);
                else ++summary.runs, fold(start->at_usec, Amounts{});
            }
        } else if (const auto* end = std::get_if<EndRecord>(&record)) {
            if (end->at_usec < window) continue;
            if (ceilings.period_usec) kept.push_back(*end);
            else fold(end->at_usec, end->used);
        } else if (const auto* old = std::get_if<SummaryRecord>(&record)) {
            if (old->at_usec < window) continue;
            if (ceilings.period_usec) {
                kept.push_back(*old);
            } else {
                summary.runs += old->runs;
                fold(old->at_usec, old->used);
            }
        }
    }
    // After the reset, before the live runs' starts: the order replay sees does not matter for totals.
    if (summarised) kept.insert(kept.begin() + (last_reset ? 1 : 0), summary);
    return kept;
}

}  // namespace husk::tenant
