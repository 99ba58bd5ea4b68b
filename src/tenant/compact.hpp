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
// counts (dated before the window) goes. What counts becomes summaries, each dated at the latest of its records:
// without a period one (nothing leaves the window but by a reset); with one, one per slice of the period
// (1/1024 of it, at least a second), so that each leaves the window when its last record would, and a busy
// tenant's ledger stays small. Totals now are the same; later a slice's records count at most one slice longer.
std::vector<Record> compact_records(const std::vector<Record>& records, std::int64_t now_usec,
                                    const Ceilings& ceilings);

}  // namespace husk::tenant
