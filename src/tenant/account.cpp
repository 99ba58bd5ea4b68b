#include "tenant/account.hpp"

#include <algorithm>
#include <map>

namespace husk::tenant {
namespace {

std::optional<std::uint64_t> left(const std::optional<std::uint64_t>& ceiling, std::uint64_t used,
                                  std::uint64_t reserved) {
    if (!ceiling) return std::nullopt;
    std::uint64_t taken = used + reserved;
    return taken >= *ceiling ? 0 : *ceiling - taken;
}

std::optional<std::uint64_t> smaller(const std::optional<std::uint64_t>& a, const std::optional<std::uint64_t>& b) {
    if (!a) return b;
    if (!b) return a;
    return std::min(*a, *b);
}

void add(Amounts& to, const Amounts& more) {
    to.cpu_usec += more.cpu_usec;
    to.wall_usec += more.wall_usec;
    to.output_bytes += more.output_bytes;
}

std::string usec_text(std::uint64_t usec) {
    // Milliseconds are the precision worth showing in a refusal.
    return std::to_string(usec / 1000) + "ms";
}

}  // namespace

Account replay(const std::vector<Record>& records, std::int64_t now_usec, const Ceilings& ceilings) {
    Account account;
    if (ceilings.period_usec)
        account.window_start_usec = now_usec - static_cast<std::int64_t>(std::min<std::uint64_t>(
                                                   *ceilings.period_usec, static_cast<std::uint64_t>(now_usec)));
    for (const Record& record : records)
        if (const auto* reset = std::get_if<ResetRecord>(&record))
            account.window_start_usec = std::max(account.window_start_usec, reset->at_usec);
    std::map<std::string, const StartRecord*> open;
    std::vector<const StartRecord*> order;
    for (const Record& record : records) {
        if (const auto* start = std::get_if<StartRecord>(&record)) {
            open[start->run] = start;
            order.push_back(start);
            if (start->at_usec >= account.window_start_usec) ++account.runs;
        } else if (const auto* end = std::get_if<EndRecord>(&record)) {
            // An end without its start (written twice, or the start was never durable) is charged all the same:
            // what was used is a fact whatever the records around it.
            open.erase(end->run);
            if (end->at_usec >= account.window_start_usec) add(account.used, end->used);
        } else if (const auto* summary = std::get_if<SummaryRecord>(&record)) {
            if (summary->at_usec >= account.window_start_usec) {
                add(account.used, summary->used);
                account.runs += summary->runs;
            }
        }
    }
    for (const StartRecord* start : order) {
        auto found = open.find(start->run);
        if (found == open.end() || found->second != start) continue;
        account.live.push_back(*start);
        add(account.reserved, Amounts{start->budgets.cpu_usec.value_or(0), start->budgets.wall_usec.value_or(0),
                                      start->budgets.output_bytes.value_or(0)});
    }
    return account;
}

Remaining remaining(const Ceilings& ceilings, const Account& account) {
    Remaining r;
    r.budgets.cpu_usec = left(ceilings.cpu_usec, account.used.cpu_usec, account.reserved.cpu_usec);
    r.budgets.wall_usec = left(ceilings.wall_usec, account.used.wall_usec, account.reserved.wall_usec);
    r.budgets.output_bytes = left(ceilings.output_bytes, account.used.output_bytes, account.reserved.output_bytes);
    r.runs = left(ceilings.runs, account.runs, 0);
    r.concurrent = left(ceilings.concurrent, account.live.size(), 0);
    return r;
}

std::optional<std::string> exhausted(const Ceilings& ceilings, const Account& account) {
    Remaining r = remaining(ceilings, account);
    auto held = [](std::uint64_t reserved) {
        return reserved ? " (" + usec_text(reserved) + " of it held by live runs)" : std::string();
    };
    if (r.runs == 0) return "runs: " + std::to_string(account.runs) + " of " + std::to_string(*ceilings.runs) + " started";
    if (r.concurrent == 0)
        return "concurrent: " + std::to_string(account.live.size()) + " of " + std::to_string(*ceilings.concurrent) +
               " runs alive";
    if (r.budgets.cpu_usec == 0)
        return "cpu: " + usec_text(account.used.cpu_usec + account.reserved.cpu_usec) + " of " +
               usec_text(*ceilings.cpu_usec) + " used" + held(account.reserved.cpu_usec);
    if (r.budgets.wall_usec == 0)
        return "wall: " + usec_text(account.used.wall_usec + account.reserved.wall_usec) + " of " +
               usec_text(*ceilings.wall_usec) + " used" + held(account.reserved.wall_usec);
    if (r.budgets.output_bytes == 0)
        return "output: " + std::to_string(account.used.output_bytes + account.reserved.output_bytes) + " of " +
               std::to_string(*ceilings.output_bytes) + " bytes used" +
               (account.reserved.output_bytes ? " (" + std::to_string(account.reserved.output_bytes) +
                                                    " bytes of it held by live runs)"
                                              : std::string());
    return std::nullopt;
}

Budgets clamp(const Budgets& own, const Remaining& left) {
    return Budgets{smaller(own.cpu_usec, left.budgets.cpu_usec), smaller(own.wall_usec, left.budgets.wall_usec),
                   smaller(own.output_bytes, left.budgets.output_bytes)};
}

}  // namespace husk::tenant
