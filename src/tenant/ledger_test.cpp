#include "tenant/ledger.hpp"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>
#include <string>

#include "tenant/account.hpp"
#include "tenant/ceilings.hpp"

using namespace husk::tenant;

namespace {
struct TempRoot {
    std::string path;
    TempRoot() {
        char tmpl[] = "/tmp/husk-tenant-test-XXXXXX";
        path = mkdtemp(tmpl);
        Ceilings ceilings;
        ceilings.runs = 1000;
        REQUIRE(write_ceilings(path, "t1", ceilings));
    }
    ~TempRoot() { std::system(("rm -rf '" + path + "'").c_str()); }
    std::string ledger() const { return path + "/tenants/t1.ledger"; }
};

std::string contents(const std::string& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

void append_raw(const std::string& path, const std::string& bytes) {
    std::ofstream out(path, std::ios::app);
    out << bytes;
}
}  // namespace

TEST_CASE("ceilings round-trip through the tenant file", "[tenant]") {
    TempRoot root;
    Ceilings ceilings;
    ceilings.cpu_usec = 600000000;
    ceilings.output_bytes = 1 << 30;
    ceilings.concurrent = 4;
    REQUIRE(write_ceilings(root.path, "t2", ceilings));
    CHECK(read_ceilings(root.path, "t2").value() == ceilings);
    auto missing = read_ceilings(root.path, "nobody");
    REQUIRE_FALSE(missing);
    CHECK(missing.error().kind == husk::ErrorKind::not_found);
    CHECK_FALSE(write_ceilings(root.path, "../x", ceilings));
    CHECK_FALSE(Ledger::open(root.path, "nobody"));
}

TEST_CASE("a torn last record is ignored and cut off before the next append", "[tenant]") {
    TempRoot root;
    {
        auto ledger = Ledger::open(root.path, "t1");
        REQUIRE(ledger);
        REQUIRE(ledger->append(StartRecord{"a@1", 1, {}, ""}));
    }
    std::string whole = *encode_record(EndRecord{"a@1", 2, {7, 8, 9}, Source::monitor});
    append_raw(root.ledger(), whole.substr(0, whole.size() / 2));  // the crash came mid-write
    {
        auto ledger = Ledger::open(root.path, "t1");
        REQUIRE(ledger);
        CHECK(ledger->records().size() == 1);
        REQUIRE(ledger->append(EndRecord{"a@1", 3, {1, 2, 3}, Source::deleted}));
    }
    auto ledger = Ledger::open(root.path, "t1");
    REQUIRE(ledger);
    REQUIRE(ledger->records().size() == 2);
    CHECK(std::get<EndRecord>(ledger->records()[1]).used == Amounts{1, 2, 3});
    CHECK(contents(root.ledger()).find(whole.substr(0, whole.size() / 2)) == std::string::npos);
}

TEST_CASE("a whole line with a bad checksum is corruption, the last one too: refused, naming the file and line",
          "[tenant]") {
    TempRoot root;
    std::string good = *encode_record(ResetRecord{5});
    std::string bad = good;
    bad[6] = '9';  // one digit off: a bit flip, not a crash (a crash leaves no newline)
    append_raw(root.ledger(), good + bad);
    const std::string before = contents(root.ledger());
    auto corrupt = Ledger::open(root.path, "t1");
    REQUIRE_FALSE(corrupt);
    CHECK(corrupt.error().message().find(root.ledger() + ": line 2 (byte " + std::to_string(good.size()) +
                                         ") is corrupt") != std::string::npos);
    CHECK(contents(root.ledger()) == before);  // nothing cut
    append_raw(root.ledger(), good);
    CHECK_FALSE(Ledger::open(root.path, "t1"));
}

TEST_CASE("a ledger or ceilings file that is a symlink is refused, and what it names is untouched", "[tenant]") {
    TempRoot root;
    const std::string victim = root.path + "/victim";
    append_raw(victim, "a root file without a newline");
    REQUIRE(::symlink(victim.c_str(), root.ledger().c_str()) == 0);
    auto ledger = Ledger::open(root.path, "t1");
    REQUIRE_FALSE(ledger);
    CHECK(ledger.error().message().find("a symlink; husk never follows one") != std::string::npos);
    CHECK(contents(victim) == "a root file without a newline");
    REQUIRE(::symlink(victim.c_str(), (root.path + "/tenants/t3.json").c_str()) == 0);
    auto ceilings = read_ceilings(root.path, "t3");
    REQUIRE_FALSE(ceilings);
    CHECK(ceilings.error().message().find("a symlink") != std::string::npos);
}

TEST_CASE("concurrent writers in separate processes are serialised: every record whole, none lost", "[tenant]") {
    TempRoot root;
    constexpr int writers = 6;
    constexpr int each = 40;
    std::vector<pid_t> children;
    for (int w = 0; w < writers; ++w) {
        pid_t pid = ::fork();
        REQUIRE(pid >= 0);
        if (pid == 0) {
            // Read, decide, append under the lock, as admission does: each run takes the next number.
            for (int i = 0; i < each; ++i) {
                auto ledger = Ledger::open(root.path, "t1");
                if (!ledger) ::_exit(1);
                auto run = "r" + std::to_string(ledger->records().size()) + "@w" + std::to_string(w);
                if (!ledger->append(StartRecord{run, i, {}, ""})) ::_exit(2);
            }
            ::_exit(0);
        }
        children.push_back(pid);
    }
    for (pid_t pid : children) {
        int status = 0;
        REQUIRE(::waitpid(pid, &status, 0) == pid);
        CHECK(WIFEXITED(status));
        CHECK(WEXITSTATUS(status) == 0);
    }
    auto ledger = Ledger::open(root.path, "t1");
    REQUIRE(ledger);
    REQUIRE(ledger->records().size() == writers * each);
    // Under the lock each writer saw every record before its own: the numbers are 0..N-1, each once.
    for (std::size_t i = 0; i < ledger->records().size(); ++i)
        CHECK(std::get<StartRecord>(ledger->records()[i]).run.starts_with("r" + std::to_string(i) + "@"));
}
