#include "tenant/compact.hpp"

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <string>

#include "tenant/account.hpp"
#include "tenant/ledger.hpp"

using namespace husk::tenant;

namespace {

constexpr std::int64_t hour = 3600LL * 1000000;

struct TempRoot {
    std::string path;
    explicit TempRoot(const Ceilings& ceilings) {
        char tmpl[] = "/tmp/husk-compact-test-XXXXXX";
        path = mkdtemp(tmpl);
        REQUIRE(write_ceilings(path, "t", ceilings));
    }
    ~TempRoot() { std::system(("rm -rf '" + path + "'").c_str()); }
};

std::string run(int i) { return "c" + std::to_string(i) + "@2026-11-27T00:00:00Z"; }

// 300 ended runs an hour apart from 300 h ago, a reset 200 h ago, and 2 runs still live: one started before
// the reset, one after.
std::vector<Record> history(std::int64_t now) {
    std::vector<Record> records;
    std::int64_t at = now - 300 * hour;
    for (int i = 0; i < 300; ++i, at += hour) {
        if (i == 10) records.push_back(StartRecord{run(1000), at, {5000, 60000000, {}}, "/husk/live0"});
        if (i == 100) records.push_back(ResetRecord{at});
        records.push_back(StartRecord{run(i), at, {1000, {}, {}}, "/husk/x"});
        records.push_back(EndRecord{run(i), at + 10, {static_cast<std::uint64_t>(i), 7, 3}, Source::monitor});
    }
    records.push_back(StartRecord{run(1001), now - 1, {{}, {}, 10}, ""});
    return records;
}

void check_same_totals(const Account& a, const Account& b) {
    CHECK(a.window_start_usec == b.window_start_usec);
    CHECK(a.used == b.used);
    CHECK(a.runs == b.runs);
    CHECK(a.live == b.live);
    CHECK(a.reserved == b.reserved);
}

}  // namespace

TEST_CASE("compaction keeps every total, with a period and without", "[tenant]") {
    const std::int64_t now = 1'800'000'000LL * 1000000;
    for (bool period : {false, true}) {
        Ceilings ceilings;
        ceilings.cpu_usec = 1 << 30;
        if (period) ceilings.period_usec = 150 * hour;
        std::vector<Record> records = history(now);
        std::vector<Record> compacted = compact_records(records, now, ceilings);
        INFO("period: " << period << ", " << compacted.size() << " records kept of " << records.size());
        check_same_totals(replay(records, now, ceilings), replay(compacted, now, ceilings));
        // Without a period: the reset, one summary and the 2 live starts. With one: a summary per slice of the
        // window holding records (its 150 runs, an hour apart, each start and end in one slice).
        CHECK(compacted.size() == (period ? 1 + 150 + 2 : 1 + 1 + 2));
        // Compacting again changes nothing.
        CHECK(compact_records(compacted, now, ceilings) == compacted);
        // Later, as the window moves on, the totals still agree (with a period each slice leaves with its last record).
        check_same_totals(replay(records, now + 20 * hour, ceilings), replay(compacted, now + 20 * hour, ceilings));
    }
}

TEST_CASE("a compacted ledger keeps its totals across a crash at every step, and its lock", "[tenant]") {
    Ceilings ceilings;
    ceilings.runs = 100000;
    const std::int64_t now = now_usec();
    for (auto step : {Ledger::CompactStep::written, Ledger::CompactStep::renamed, Ledger::CompactStep::done}) {
        TempRoot root(ceilings);
        Account before;
        std::uint64_t size_before = 0;
        {
            Ledger ledger = Ledger::open(root.path, "t").value();
            for (const Record& record : history(now)) REQUIRE(ledger.append(record));
            before = replay(ledger.records(), now, ceilings);
            size_before = ledger.size();
            // What a husk killed after this step leaves behind.
            REQUIRE(ledger.compact(ceilings, now, step));
        }
        Ledger reopened = Ledger::open(root.path, "t").value();
        INFO("step " << static_cast<int>(step) << ": " << size_before << " bytes before, " << reopened.size() << " after");
        check_same_totals(before, replay(reopened.records(), now, ceilings));
        if (step == Ledger::CompactStep::written) CHECK(reopened.size() == size_before);
        else CHECK(reopened.size() < size_before / 50);
        // Appends go on after compaction (the next compaction rewrites a left-over .new file).
        REQUIRE(reopened.append(EndRecord{run(1001), now, {1, 1, 1}, Source::monitor}));
        REQUIRE(reopened.compact(ceilings, now));
        CHECK(replay(reopened.records(), now, ceilings).live.size() == 1);
    }
}

TEST_CASE("a husk waiting for the lock during compaction reads the compacted ledger", "[tenant]") {
    Ceilings ceilings;
    TempRoot root(ceilings);
    const std::int64_t now = now_usec();
    Ledger first = Ledger::open(root.path, "t").value();
    for (const Record& record : history(now)) REQUIRE(first.append(record));
    Account before = replay(first.records(), now, ceilings);
    // A child blocks on the lock while this compacts, then appends a start: it must land in the new file.
    pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0) {
        first.close();  // the inherited copy of the parent's open file holds the parent's lock
        auto waiter = Ledger::open(root.path, "t");
        bool ok = waiter && waiter->append(StartRecord{run(5000), now, {}, ""});
        _exit(ok ? 0 : 1);
    }
    usleep(100000);  // the child is (most likely) waiting; if not yet, it opens the new file anyway
    REQUIRE(first.compact(ceilings, now));
    first.close();
    int status = 0;
    REQUIRE(waitpid(child, &status, 0) == child);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
    Ledger after = Ledger::open(root.path, "t").value();
    Account account = replay(after.records(), now, ceilings);
    CHECK(account.used == before.used);
    CHECK(account.live.size() == before.live.size() + 1);
}

TEST_CASE("with a period a busy tenant's ledger compacts to a slice a record, never charging less", "[tenant]") {
    const std::int64_t now = 1'800'000'000LL * 1000000;
    Ceilings ceilings;
    ceilings.period_usec = 24 * hour;
    std::vector<Record> records;
    // 200,000 runs in the last day, a run every ~0.43 s: without slices the ledger would only grow.
    for (int i = 0; i < 200000; ++i) {
        const std::int64_t at = now - 24 * hour + 1 + static_cast<std::int64_t>(i) * 432000;
        records.push_back(StartRecord{run(i), at, {}, ""});
        records.push_back(EndRecord{run(i), at + 1000, {1, 1, 1}, Source::monitor});
    }
    std::vector<Record> compacted = compact_records(records, now, ceilings);
    CHECK(compacted.size() <= 1025);
    check_same_totals(replay(records, now, ceilings), replay(compacted, now, ceilings));
    // As the window moves on, the compacted ledger charges at least what the records did, at most a slice more.
    for (std::int64_t later : {hour, 6 * hour, 23 * hour}) {
        Account exact = replay(records, now + later, ceilings);
        Account sliced = replay(compacted, now + later, ceilings);
        INFO(later / hour << " h later");
        CHECK(sliced.runs >= exact.runs);
        CHECK(sliced.used.cpu_usec >= exact.used.cpu_usec);
        CHECK(sliced.runs <= exact.runs + 200000 / 1024 + 1);
    }
}
