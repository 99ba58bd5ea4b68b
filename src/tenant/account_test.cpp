#include "tenant/account.hpp"

#include <catch2/catch.hpp>

using namespace husk::tenant;

namespace {
constexpr std::int64_t hour = 3600LL * 1000000;
StartRecord start(const char* run, std::int64_t at, Budgets budgets = {}) { return StartRecord{run, at, budgets, ""}; }
EndRecord end(const char* run, std::int64_t at, Amounts used) { return EndRecord{run, at, used, Source::monitor}; }
}  // namespace

TEST_CASE("charges older than the period no longer count", "[tenant]") {
    Ceilings ceilings;
    ceilings.cpu_usec = 1000;
    ceilings.runs = 2;
    ceilings.period_usec = 24 * hour;
    std::vector<Record> records{start("a@1", 1 * hour), end("a@1", 1 * hour + 5, {600, 10, 0}),
                                start("b@1", 20 * hour), end("b@1", 20 * hour + 5, {400, 10, 0})};
    Account full = replay(records, 21 * hour, ceilings);
    CHECK(full.used.cpu_usec == 1000);
    CHECK(full.runs == 2);
    CHECK(exhausted(ceilings, full));
    // At 25h + 6us the first run's end is older than 24h: its charge and its run roll out of the window.
    Account rolled = replay(records, 25 * hour + 6, ceilings);
    CHECK(rolled.used.cpu_usec == 400);
    CHECK(rolled.runs == 1);
    CHECK_FALSE(exhausted(ceilings, rolled));
    CHECK(remaining(ceilings, rolled).budgets.cpu_usec == 600);
}

TEST_CASE("live runs hold their budgets and count as concurrent", "[tenant]") {
    Ceilings ceilings;
    ceilings.cpu_usec = 1000;
    ceilings.concurrent = 2;
    std::vector<Record> records{start("a@1", 10, {300, {}, {}}), start("b@1", 20, {300, {}, {}})};
    Account account = replay(records, 30, ceilings);
    CHECK(account.live.size() == 2);
    CHECK(account.reserved.cpu_usec == 600);
    CHECK(exhausted(ceilings, account)->starts_with("concurrent: 2 of 2"));
    records.push_back(end("a@1", 40, {250, 30, 0}));
    account = replay(records, 50, ceilings);
    CHECK_FALSE(exhausted(ceilings, account));
    Remaining left = remaining(ceilings, account);
    CHECK(left.budgets.cpu_usec == 1000 - 250 - 300);
    CHECK(clamp(Budgets{{}, 5000, {}}, left) == Budgets{450, 5000, {}});
    CHECK(clamp(Budgets{100, {}, {}}, left) == Budgets{100, {}, {}});
}

TEST_CASE("a reset forgets what ended before it, not the runs still alive", "[tenant]") {
    Ceilings ceilings;
    ceilings.wall_usec = 100;
    std::vector<Record> records{start("a@1", 1), end("a@1", 2, {0, 100, 0}), start("b@1", 3, {{}, 40, {}}),
                                ResetRecord{4}};
    Account account = replay(records, 5, ceilings);
    CHECK(account.used.wall_usec == 0);
    CHECK(account.runs == 0);
    CHECK(account.live.size() == 1);
    CHECK(remaining(ceilings, account).budgets.wall_usec == 60);
}

TEST_CASE("an exhausted budget names what was used", "[tenant]") {
    Ceilings ceilings;
    ceilings.output_bytes = 10;
    Account account = replay({start("a@1", 1), end("a@1", 2, {0, 0, 12})}, 3, ceilings);
    CHECK(exhausted(ceilings, account) == "output: 12 of 10 bytes used");
    CHECK(remaining(ceilings, account).budgets.output_bytes == 0);
}
