#include "tenant/compact.hpp"

#include <algorithm>
#include <map>

#include "tenant/account.hpp"

namespace husk::tenant {

std::vector<Record> compact_records(const std::vector<Record>& records, std::int64_t now_usec,
                                    const Ceilings& ceilings) {
    Account account = replay(records, now_usec, ceilings);
    const std::int64_t window = account.window_start_usec;
    const ResetRecord* last_reset = nullptr;
    for (const Record& record : records)
        if (const auto* reset = std::get_if<ResetRecord>(&record)) last_reset = reset;

    // Without a period everything in the window counts until the next reset: one summary. With one, each record
    // leaves the window at its own time: one summary per slice of the period, dated at its latest record, which
    // leaves when that record does. So the compacted ledger never charges less than the records did, and charges
    // a slice's records at most one slice longer: period / slices_per_period, but at least a second.
    constexpr std::int64_t slices_per_period = 1024;
    const std::int64_t slice =
        ceilings.period_usec
            ? std::max<std::int64_t>(static_cast<std::int64_t>(*ceilings.period_usec) / slices_per_period, 1000000)
            : 0;
    std::map<std::int64_t, SummaryRecord> summaries;  // by slice (one key without a period)
    auto fold = [&](std::int64_t at, const Amounts& used, std::uint64_t runs) {
        SummaryRecord& summary = summaries[slice ? at / slice : 0];
        summary.runs += runs;
        summary.used.cpu_usec += used.cpu_usec;
        summary.used.wall_usec += used.wall_usec;
        summary.used.output_bytes += used.output_bytes;
        summary.at_usec = std::max(summary.at_usec, at);
    };
    std::vector<Record> live;
    for (const Record& record : records) {
        if (const auto* start = std::get_if<StartRecord>(&record)) {
            if (std::find(account.live.begin(), account.live.end(), *start) != account.live.end())
                live.push_back(*start);
            else if (start->at_usec >= window)
                fold(start->at_usec, Amounts{}, 1);
        } else if (const auto* end = std::get_if<EndRecord>(&record)) {
            if (end->at_usec >= window) fold(end->at_usec, end->used, 0);
        } else if (const auto* old = std::get_if<SummaryRecord>(&record)) {
            if (old->at_usec >= window) fold(old->at_usec, old->used, old->runs);
        }
    }
    // The reset, the summaries, then the live runs' starts: the order replay sees does not matter for totals.
    std::vector<Record> kept;
    if (last_reset) kept.push_back(*last_reset);
    for (const auto& [key, summary] : summaries) kept.push_back(summary);
    kept.insert(kept.end(), live.begin(), live.end());
    return kept;
}

}  // namespace husk::tenant
