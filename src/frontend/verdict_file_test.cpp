#include "frontend/verdict_file.hpp"

#include <catch2/catch.hpp>

using namespace husk::frontend;

TEST_CASE("a refused run's verdict holds the error and nothing that was never measured", "[monitor]") {
    RunVerdict verdict;
    verdict.id = "c1";
    verdict.exit.reason = "refused";
    verdict.exit.detail = "--timeout: must be greater than 0";
    verdict.exit.finished = "2026-11-25T15:00:00Z";
    verdict.status = 2;
    CHECK(encode_verdict(verdict) ==
          R"({"id":"c1","exit":{"code":-1,"signal":0,"reason":"refused","detail":"--timeout: must be greater than 0"},)"
          R"("status":2,"finished":"2026-11-25T15:00:00Z"})");
}

TEST_CASE("a verdict names each limit in force with its unit, and the wall time", "[monitor]") {
    RunVerdict verdict;
    verdict.id = "c1";
    verdict.exit = {124, 0, "timeout", "wall-time limit 2s reached", "F", {}, {}};
    verdict.exit.usage.cpu_usec = 7;
    verdict.status = 124;
    verdict.started = "S";
    verdict.wall_time = std::chrono::milliseconds(2003);
    husk::monitor::StopPolicy policy;
    policy.timeout = std::chrono::milliseconds(2000);
    policy.output_limit = 65536;
    policy.cpu_limit = std::chrono::microseconds(1500000);
    verdict.policy = policy;
    CHECK(encode_verdict(verdict) ==
          R"({"id":"c1","exit":{"code":124,"signal":0,"reason":"timeout","detail":"wall-time limit 2s reached",)"
          R"("exitedAfterLimit":true},"status":124,"started":"S","finished":"F","wallTimeMs":2003,)"
          R"("usage":{"cpuUsec":7},"limits":{"timeoutMs":2000,"killGraceMs":5000,"stopSignal":"SIGTERM",)"
          R"("outputLimitBytes":65536,"cpuLimitUsec":1500000}})");
}
