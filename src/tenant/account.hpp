// What a tenant's ledger adds up to now: used within the period, runs started, live runs with the budgets they
// hold, and from that what is left and whether a new run may start (docs/tenants.md, "Accounting").
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tenant/ceilings.hpp"
#include "tenant/record.hpp"

namespace husk::tenant {

struct Account {
    std::int64_t window_start_usec = 0;  // the later of now - period and the last reset
    Amounts used;                        // end records dated in the window
    std::uint64_t runs = 0;              // start records dated in the window, and live runs
    // Runs with a start record and no end record yet: each holds its whole budget until it ends, so parallel
    // runs cannot together take more than what was left.
    std::vector<StartRecord> live;
    Amounts reserved;
};

Account replay(const std::vector<Record>& records, std::int64_t now_usec, const Ceilings& ceilings);

// What a new run may still use: nothing is unlimited.
struct Remaining {
    Budgets budgets;  // ceiling - used - reserved, at least 0
    std::optional<std::uint64_t> runs;
    std::optional<std::uint64_t> concurrent;
};
Remaining remaining(const Ceilings& ceilings, const Account& account);

// Why no run may start now ("cpu: 10m0s of 10m0s used"), or nothing when one may.
std::optional<std::string> exhausted(const Ceilings& ceilings, const Account& account);

// A run's budgets: each the smaller of its own limit and what the tenant has left.
Budgets clamp(const Budgets& own, const Remaining& left);

}  // namespace husk::tenant
