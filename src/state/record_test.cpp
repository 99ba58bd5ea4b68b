#include "state/record.hpp"

#include <catch2/catch.hpp>

using namespace husk::state;

TEST_CASE("a record survives encoding and decoding unchanged", "[state]") {
    Record r;
    r.id = "c1";
    r.bundle = "/b";
    r.rootfs = "/b/rootfs";
    r.created = "2026-11-22T13:00:00.000000001Z";
    r.annotations = {{"a", "1"}, {"run.husk.timeout", "2s"}};
    r.pid = 4242;
    r.pid_start_time = 18446744073709551000ull;
    r.boot_id = "boot";
    r.cgroup_mount = "/sys/fs/cgroup/unified";
    r.cgroup_path = "/husk/c1";
    r.caller_pid = 777;
    r.caller_start_time = 12345;
    r.die_with_parent = true;
    r.monitor_deletes = true;
    r.exit = ExitRecord{137, 9, "killed", "husk kill", "2026-11-22T13:00:01Z", Usage{}, {}};
    Record back = decode_record(encode_record(r)).value();
    CHECK(back.id == r.id);
    CHECK(back.annotations == r.annotations);
    CHECK(back.pid == 4242);
    CHECK(back.pid_start_time == r.pid_start_time);
    CHECK(back.cgroup_path == r.cgroup_path);
    CHECK(back.caller_pid == 777);
    CHECK(back.caller_start_time == 12345u);
    CHECK(back.die_with_parent);
    CHECK(back.monitor_deletes);
    REQUIRE(back.exit);
    CHECK(back.exit->code == 137);
    CHECK(back.exit->reason == "killed");
    CHECK_FALSE(back.cause);
    CHECK(back.kill_requests.empty());
    CHECK_FALSE(back.exit->usage.cpu_usec);
    CHECK_FALSE(back.exit->usage.memory_peak_bytes);
}

TEST_CASE("a record keeps the usage counters that were read, and only those", "[state]") {
    Record r;
    r.id = "c3";
    r.exit = ExitRecord{0, 0, "exited", "exit code 0", "2026-11-22T13:00:01Z", Usage{}, {}};
    r.exit->usage.cpu_usec = 18446744073709551000ull;
    r.exit->usage.pids_peak = 3;
    r.exit->usage.stdout_bytes = 65536;
    r.exit->usage.stderr_bytes = 0;
    std::string json = encode_record(r);
    CHECK(json.find("memoryPeakBytes") == std::string::npos);
    Record back = decode_record(json).value();
    REQUIRE(back.exit);
    CHECK(back.exit->usage.cpu_usec == 18446744073709551000ull);
    CHECK(back.exit->usage.pids_peak == 3u);
    CHECK(back.exit->usage.stdout_bytes == 65536u);
    CHECK(back.exit->usage.stderr_bytes == 0u);
    CHECK_FALSE(back.exit->usage.memory_peak_bytes);
}

TEST_CASE("a record keeps the factors that limited the container", "[state]") {
    Record r;
    r.id = "c4";
    r.exit = ExitRecord{};
    CHECK(encode_record(r).find("factors") == std::string::npos);
    r.exit->factors = {Factor{"pids-limit", 7}};
    Record back = decode_record(encode_record(r)).value();
    REQUIRE(back.exit);
    REQUIRE(back.exit->factors.size() == 1);
    CHECK(back.exit->factors[0].kind == "pids-limit");
    CHECK(back.exit->factors[0].count == 7u);
}

TEST_CASE("a record keeps a recorded stop cause and the signals husk kill sent", "[state]") {
    Record r;
    r.id = "c2";
    r.cause = StopCause{"timeout", "wall-time limit 2s reached", "2026-11-22T13:00:02Z"};
    r.kill_requests = {9, 15};
    Record back = decode_record(encode_record(r)).value();
    REQUIRE(back.cause);
    CHECK(back.cause->reason == "timeout");
    CHECK(back.cause->detail == "wall-time limit 2s reached");
    CHECK(back.cause->at == "2026-11-22T13:00:02Z");
    CHECK(back.kill_requests == std::vector<int>{9, 15});
    CHECK_FALSE(back.exit);
}

TEST_CASE("a corrupt record is an error, not an empty container", "[state]") {
    CHECK_FALSE(decode_record("{\"id\": "));
    CHECK(decode_record("[]").error().message() == "corrupt state.json: not a JSON object");
}

TEST_CASE("a record value of the wrong type is an error naming it, as in config.json", "[state]") {
    auto error_of = [](const char* json) { return decode_record(json).error().message(); };
    CHECK(error_of(R"({"pid": "12"})") == "corrupt state.json: pid: expected an integer");
    CHECK(error_of(R"({"pidStartTime": -1})") == "corrupt state.json: pidStartTime: expected an unsigned integer");
    CHECK(error_of(R"({"exit": 5})") == "corrupt state.json: exit: expected an object");
    CHECK(error_of(R"({"exit": {"usage": {"pidsPeak": 1.5}}})") ==
          "corrupt state.json: exit.usage.pidsPeak: expected an unsigned integer");
    CHECK(error_of(R"({"killRequests": [9, "TERM"]})") == "corrupt state.json: killRequests[1]: expected an integer");
    CHECK(error_of(R"({"annotations": {"a": 1}})") == "corrupt state.json: annotations.a: expected a string");
    CHECK(error_of(R"({"security": {"seccompResolved": [{"dropped": "x"}]}})") ==
          "corrupt state.json: security.seccompResolved[0].dropped: expected an array");
    CHECK(error_of(R"({"security": {"seccompSkippedSyscalls": ["a", 2]}})") ==
          "corrupt state.json: security.seccompSkippedSyscalls[1]: expected a string");
    CHECK(error_of(R"({"cause": {"at": 3}})") == "corrupt state.json: cause.at: expected a string");
    // null is absent, as in config.json: what Go clients write for empty values.
    Record r = decode_record(R"({"id": "c1", "exit": null, "killRequests": null})").value();
    CHECK(r.id == "c1");
    CHECK_FALSE(r.exit);
}

TEST_CASE("a record keeps the security posture that was in force", "[state]") {
    Record r;
    r.id = "c5";
    Security sec;
    sec.seccomp = "filter";
    sec.seccomp_filters = 1;
    sec.seccomp_skipped = {"mseal"};
    sec.seccomp_resolved = {{"setns", "syscalls[15]: SCMP_ACT_ERRNO (errnoRet 1)", {"syscalls[1]: SCMP_ACT_ALLOW"}}};
    sec.landlock_abi = 7;
    sec.landlock_dropped = {"ioctl_dev"};
    sec.no_new_privileges = true;
    sec.caps_effective = 0xa80425fbull;
    sec.caps_bounding = 0x1ffffffffffull;
    sec.user_namespace = true;
    sec.uid_map = {{0, 1000, 1}, {1, 3000000000u, 65535}};
    sec.gid_map = {{65534, 1000, 1}};
    r.security = sec;
    std::string json = encode_record(r);
    CHECK(json.find("\"capsEffective\":\"0x00000000a80425fb\"") != std::string::npos);
    Record back = decode_record(json).value();
    REQUIRE(back.security);
    CHECK(back.security->seccomp == "filter");
    CHECK(back.security->seccomp_filters == 1);
    CHECK(back.security->seccomp_skipped == std::vector<std::string>{"mseal"});
    REQUIRE(back.security->seccomp_resolved.size() == 1);
    CHECK(back.security->seccomp_resolved[0].syscall == "setns");
    CHECK(back.security->seccomp_resolved[0].kept == "syscalls[15]: SCMP_ACT_ERRNO (errnoRet 1)");
    CHECK(back.security->seccomp_resolved[0].dropped == std::vector<std::string>{"syscalls[1]: SCMP_ACT_ALLOW"});
    CHECK(back.security->landlock_abi == 7);
    CHECK(back.security->landlock_dropped == std::vector<std::string>{"ioctl_dev"});
    CHECK(back.security->no_new_privileges);
    CHECK(back.security->caps_effective == 0xa80425fbull);
    CHECK(back.security->caps_bounding == 0x1ffffffffffull);
    REQUIRE(back.security->uid_map.size() == 2);
    CHECK(back.security->uid_map[1].container_id == 1);
    CHECK(back.security->uid_map[1].host_id == 3000000000u);
    CHECK(back.security->uid_map[1].size == 65535);
    REQUIRE(back.security->gid_map.size() == 1);
    CHECK(back.security->gid_map[0].container_id == 65534);
    r.security->landlock_abi.reset();
    CHECK(encode_record(r).find("landlockAbi") == std::string::npos);
}

TEST_CASE("decode_record refuses a record nested a million levels deep instead of crashing", "[state]") {
    auto r = decode_record(std::string(1'000'000, '[') + std::string(1'000'000, ']'));
    REQUIRE_FALSE(r);
    CHECK(r.error().message() == "corrupt state.json: invalid JSON: nested deeper than 256 levels");
}
