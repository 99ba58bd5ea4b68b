#include "tenant/record.hpp"

#include <catch2/catch.hpp>

using namespace husk::tenant;

TEST_CASE("ledger records survive encoding and decoding", "[tenant]") {
    StartRecord start{"c1@2026-11-25T17:00:00.123456789Z", 1764090000123456, {1000, std::nullopt, 4096},
                      "/sys/fs/cgroup/unified/husk/c1"};
    EndRecord end{"c1@2026-11-25T17:00:00.123456789Z", 1764090001000000, {900, 877000, 12}, Source::deleted};
    ResetRecord reset{1764090002000000};
    for (const Record& record : {Record(start), Record(end), Record(reset)}) {
        auto line = encode_record(record);
        REQUIRE(line);
        CHECK(line->ends_with('\n'));
        auto back = decode_record(*line);
        REQUIRE(back);
        CHECK(*back == record);
    }
    StartRecord no_cgroup = start;
    no_cgroup.cgroup.clear();
    CHECK(std::get<StartRecord>(*decode_record(*encode_record(no_cgroup))).cgroup.empty());
}

TEST_CASE("a record with a changed or missing byte is not decoded", "[tenant]") {
    std::string line = *encode_record(EndRecord{"c1@t", 5, {100, 200, 300}, Source::monitor});
    for (std::size_t cut = 0; cut + 1 < line.size(); ++cut) CHECK_FALSE(decode_record(line.substr(0, cut)));
    std::string changed = line;
    changed[line.find("100")] = '9';  // a smaller charge must not pass for the real one
    CHECK_FALSE(decode_record(changed));
}

TEST_CASE("a run name or cgroup path with white space is not encoded", "[tenant]") {
    CHECK_FALSE(encode_record(StartRecord{"c 1@t", 1, {}, ""}));
    CHECK_FALSE(encode_record(StartRecord{"c1@t", 1, {}, "/sys/fs/cgroup/a b"}));
    CHECK_FALSE(encode_record(EndRecord{"c1@t\n", 1, {}, Source::monitor}));
}
