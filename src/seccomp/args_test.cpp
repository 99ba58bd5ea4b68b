// syscalls[].args: each operator, 64-bit values, and several comparisons in one entry. The probe is
// getpgid(a0) with a second, ignored argument a1: numbers that are no pid give ESRCH, a matching rule 77.
#include <sys/syscall.h>

#include <array>
#include <cstdint>

#include "seccomp/test_support.hpp"

using namespace husk::seccomp::test;

namespace {

constexpr std::uint64_t V = 1000000000;  // above any pid_max: getpgid(V) is ESRCH

struct Args {
    std::uint64_t a0 = 0, a1 = 0;
};

template <std::size_t N>
struct Matches {
    std::array<bool, N> matched{};
};

// Loads "getpgid → ERRNO(77) when <args_json>" and reports which of the calls matched.
template <std::size_t N>
std::array<bool, N> matches(const std::string& args_json, const std::array<Args, N>& calls) {
    auto plan = prepare(R"({"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [{"names": ["getpgid"],
        "action": "SCMP_ACT_ERRNO", "errnoRet": 77, "args": )" + args_json + "}]}");
    auto outcome = run_filtered<Matches<N>>(plan, [&] {
        Matches<N> report;
        for (std::size_t i = 0; i < N; ++i) report.matched[i] = call(SYS_getpgid, calls[i].a0, calls[i].a1).error == 77;
        return report;
    });
    REQUIRE(outcome.reported);
    return outcome.report.matched;
}

std::string one(const char* op, std::uint64_t value, std::uint64_t value_two = 0) {
    return R"([{"index": 0, "op": ")" + std::string(op) + R"(", "value": )" + std::to_string(value) +
           R"(, "valueTwo": )" + std::to_string(value_two) + "}]";
}

using Three = std::array<bool, 3>;
const std::array<Args, 3> around_v{Args{V - 1}, Args{V}, Args{V + 1}};

}  // namespace

TEST_CASE("each comparison operator matches the argument as the spec names it", "[seccomp]") {
    CHECK(matches(one("SCMP_CMP_NE", V), around_v) == Three{true, false, true});
    CHECK(matches(one("SCMP_CMP_LT", V), around_v) == Three{true, false, false});
    CHECK(matches(one("SCMP_CMP_LE", V), around_v) == Three{true, true, false});
    CHECK(matches(one("SCMP_CMP_EQ", V), around_v) == Three{false, true, false});
    CHECK(matches(one("SCMP_CMP_GE", V), around_v) == Three{false, true, true});
    CHECK(matches(one("SCMP_CMP_GT", V), around_v) == Three{false, false, true});
}

TEST_CASE("SCMP_CMP_MASKED_EQ matches (argument & value) == valueTwo", "[seccomp]") {
    std::array<Args, 3> calls{Args{V | 0x1234}, Args{(V & ~0xff00ull) | 0x1200}, Args{(V & ~0xff00ull) | 0x1300}};
    CHECK(matches(one("SCMP_CMP_MASKED_EQ", 0xff00, 0x1200), calls) ==
          Three{((V | 0x1234) & 0xff00) == 0x1200, true, false});
}

TEST_CASE("argument comparisons use all 64 bits", "[seccomp]") {
    std::uint64_t high = (1ull << 32) | V;
    std::array<Args, 2> calls{Args{high}, Args{V}};
    CHECK(matches(one("SCMP_CMP_EQ", high), calls) == std::array<bool, 2>{true, false});
}

TEST_CASE("comparisons of different arguments must all hold", "[seccomp]") {
    std::string args = R"([{"index": 0, "op": "SCMP_CMP_EQ", "value": )" + std::to_string(V) +
                       R"(}, {"index": 1, "op": "SCMP_CMP_GT", "value": 5}])";
    std::array<Args, 3> calls{Args{V, 6}, Args{V, 5}, Args{V + 1, 6}};
    CHECK(matches(args, calls) == Three{true, false, false});
}

TEST_CASE("several SCMP_CMP_EQ on one argument match any of the values, and still AND the other arguments",
          "[seccomp]") {
    std::string args = R"([{"index": 0, "op": "SCMP_CMP_EQ", "value": )" + std::to_string(V) +
                       R"(}, {"index": 0, "op": "SCMP_CMP_EQ", "value": )" + std::to_string(V + 2) +
                       R"(}, {"index": 1, "op": "SCMP_CMP_EQ", "value": 5}])";
    std::array<Args, 5> calls{Args{V, 5}, Args{V + 2, 5}, Args{V + 1, 5}, Args{V, 6}, Args{V + 2, 4}};
    CHECK(matches(args, calls) == std::array<bool, 5>{true, true, false, false, false});
}

TEST_CASE("an entry comparing one argument twice with other operators is refused, not widened", "[seccomp]") {
    std::string range = R"({"defaultAction": "SCMP_ACT_ERRNO", "syscalls": [{"names": ["getpgid"],
        "action": "SCMP_ACT_ALLOW", "args": [{"index": 0, "op": "SCMP_CMP_GE", "value": 10},
                                              {"index": 0, "op": "SCMP_CMP_LE", "value": 20}]}]})";
    CHECK(prepare_error(range) ==
          "linux.seccomp.syscalls[0].args: argument 0 is compared 2 times, not all with SCMP_CMP_EQ; libseccomp "
          "cannot require several comparisons of one argument (split the entry)");
}
