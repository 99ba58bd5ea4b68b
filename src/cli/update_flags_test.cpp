#include "cli/update_flags.hpp"

#include <catch2/catch.hpp>

using namespace husk::cli;

TEST_CASE("parse_memory_size reads base's size syntax, which reads what runc's go-units RAMInBytes does, and -1", "[cli][update]") {
    CHECK(parse_memory_size("1048576") == 1048576);
    CHECK(parse_memory_size("64m") == 64 * 1024 * 1024);
    CHECK(parse_memory_size("64M") == 64 * 1024 * 1024);
    CHECK(parse_memory_size("64mb") == 64 * 1024 * 1024);
    CHECK(parse_memory_size("64MiB") == 64 * 1024 * 1024);
    CHECK(parse_memory_size("512k") == 512 * 1024);
    CHECK(parse_memory_size("1g") == 1024LL * 1024 * 1024);
    CHECK(parse_memory_size("2t") == 2LL << 40);
    CHECK(parse_memory_size("1p") == 1LL << 50);
    CHECK(parse_memory_size("1.5g") == 1536LL * 1024 * 1024);
    CHECK(parse_memory_size("1 GiB") == 1024LL * 1024 * 1024);
    CHECK(parse_memory_size("100b") == 100);
    CHECK(parse_memory_size("100B") == 100);
    CHECK(parse_memory_size("-1") == -1);
    CHECK(parse_memory_size("0") == 0);
    for (const char* bad : {"", "m", "64x", "64mm", "64kbb", "64bi", "-2", "-1m", "1g ", "ten", "8192p"}) {
        INFO(bad);
        CHECK_FALSE(parse_memory_size(bad));
    }
}

TEST_CASE("apply_update_flags sets the fields runc's flags name and overrides what the JSON had",
          "[cli][update]") {
    husk::spec::Resources r;
    r.memory.emplace().limit = 1;
    r.memory->swap = 5;
    r.cpu.emplace().shares = 2;
    REQUIRE(apply_update_flags({{"memory", "64m"},
                                {"memory-reservation", "32m"},
                                {"cpu-share", "512"},
                                {"cpu-quota", "-1"},
                                {"cpu-period", "100000"},
                                {"cpu-burst", "1000"},
                                {"cpu-rt-period", "1000000"},
                                {"cpu-rt-runtime", "950000"},
                                {"cpuset-cpus", "0-1"},
                                {"cpuset-mems", "0"},
                                {"cpu-idle", "1"},
                                {"pids-limit", "100"},
                                {"blkio-weight", "500"}},
                               r));
    CHECK(r.memory->limit == 64 * 1024 * 1024);
    CHECK(r.memory->reservation == 32 * 1024 * 1024);
    CHECK(r.memory->swap == 5);  // not named by a flag: the JSON's value stays
    CHECK(r.cpu->shares == 512u);
    CHECK(r.cpu->quota == -1);
    CHECK(r.cpu->period == 100000u);
    CHECK(r.cpu->burst == 1000);
    CHECK(r.cpu->realtime_period == 1000000u);
    CHECK(r.cpu->realtime_runtime == 950000);
    CHECK(r.cpu->cpus == "0-1");
    CHECK(r.cpu->mems == "0");
    CHECK(r.cpu->idle == 1);
    CHECK(r.pids_limit == 100);
    REQUIRE(r.block_io);
    CHECK(r.block_io->weight == 500);

    husk::spec::Resources alias;
    REQUIRE(apply_update_flags({{"cpu-shares", "1024"}}, alias));
    CHECK(alias.cpu->shares == 1024u);
    CHECK_FALSE(alias.memory);
}

TEST_CASE("apply_update_flags names the flag and the value it cannot use", "[cli][update]") {
    husk::spec::Resources r;
    auto quota = apply_update_flags({{"cpu-quota", "lots"}}, r);
    REQUIRE_FALSE(quota);
    CHECK(quota.error().message() == "--cpu-quota \"lots\": not an integer");
    auto period = apply_update_flags({{"cpu-period", "-5"}}, r);
    REQUIRE_FALSE(period);
    CHECK(period.error().message() == "--cpu-period \"-5\": not an unsigned integer");
    auto memory = apply_update_flags({{"memory", "64q"}}, r);
    REQUIRE_FALSE(memory);
    CHECK(memory.error().message() ==
          "--memory: size \"64q\": unknown unit \"q\" (want bytes, or a number and a binary unit: 64k, 512M, 1GiB)");
    CHECK_FALSE(apply_update_flags({{"blkio-weight", "70000"}}, r));
    CHECK_FALSE(apply_update_flags({{"cpuset-cpus", ""}}, r));
    auto rdt = apply_update_flags({{"l3-cache-schema", "L3:0=f"}}, r);
    REQUIRE_FALSE(rdt);
    CHECK(rdt.error().message().find("Intel RDT") != std::string::npos);
}
