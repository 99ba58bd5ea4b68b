// Ledger compaction, the pure half: which records a compacted ledger keeps so that every total replay makes now
// (used, runs, live runs and their reservations, the window) is the same as before (docs/tenants.md,
// "Compaction"). Ledger::compact writes them.
#pragma once

#include <cstdint>
#include <vector>

#include "tenant/ceilings.hpp"
#include "tenant/record.hpp"

namespace husk::tenant {

// Keeps the last reset and the start record of every live run (recovery and charging need them). What no longer
// counts (dated before the window) goes. What counts: with a period, each record stays as it is (each leaves the
// window at its own time); without one, the ended runs' records become one summary, dated at the latest of them.
std::vector<Record> compact_records(const std::vector<Record>& records, std::int64_t now_usec,
                                    const Ceilings& ceilings);

}  // namespace husk::tenant
