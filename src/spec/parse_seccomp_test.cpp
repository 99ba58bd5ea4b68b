#include <catch2/catch.hpp>
#include <string>

#include "spec/parse.hpp"

namespace {

using husk::spec::parse_config;

std::string seccomp_error(const std::string& seccomp) {
    auto spec = parse_config(R"({"linux": {"seccomp": )" + seccomp + "}}");
    REQUIRE_FALSE(spec);
    return spec.error().message();
}

}  // namespace

TEST_CASE("parse_config fills the whole linux.seccomp object", "[spec][seccomp]") {
    auto spec = parse_config(R"({"linux": {"seccomp": {
      "defaultAction": "SCMP_ACT_ERRNO", "defaultErrnoRet": 38,
      "architectures": ["SCMP_ARCH_X86_64", "SCMP_ARCH_X32"],
      "flags": ["SECCOMP_FILTER_FLAG_LOG", "SECCOMP_FILTER_FLAG_SPEC_ALLOW"],
      "listenerPath": "/run/agent.sock", "listenerMetadata": "MKNOD=/dev/null",
      "syscalls": [
        {"names": ["read", "write"], "action": "SCMP_ACT_ALLOW"},
        {"names": ["personality"], "action": "SCMP_ACT_ERRNO", "errnoRet": 1,
         "args": [{"index": 0, "value": 8, "op": "SCMP_CMP_EQ"},
                  {"index": 1, "value": 18446744073709551615, "valueTwo": 4294967296, "op": "SCMP_CMP_MASKED_EQ"}]}
      ]}}})");
    REQUIRE(spec);
    REQUIRE(spec->linux->seccomp);
    const auto& s = *spec->linux->seccomp;
    CHECK(s.default_action == "SCMP_ACT_ERRNO");
    CHECK(s.default_errno_ret == 38u);
    CHECK(s.architectures == std::vector<std::string>{"SCMP_ARCH_X86_64", "SCMP_ARCH_X32"});
    CHECK(s.flags == std::vector<std::string>{"SECCOMP_FILTER_FLAG_LOG", "SECCOMP_FILTER_FLAG_SPEC_ALLOW"});
    CHECK(s.listener_path == "/run/agent.sock");
    CHECK(s.listener_metadata == "MKNOD=/dev/null");
    REQUIRE(s.syscalls.size() == 2);
    CHECK(s.syscalls[0].names == std::vector<std::string>{"read", "write"});
    CHECK(s.syscalls[0].action == "SCMP_ACT_ALLOW");
    CHECK_FALSE(s.syscalls[0].errno_ret);
    CHECK(s.syscalls[0].args.empty());
    CHECK(s.syscalls[1].errno_ret == 1u);
    REQUIRE(s.syscalls[1].args.size() == 2);
    CHECK(s.syscalls[1].args[0].index == 0);
    CHECK(s.syscalls[1].args[0].value == 8);
    CHECK(s.syscalls[1].args[0].value_two == 0);
    CHECK(s.syscalls[1].args[0].op == "SCMP_CMP_EQ");
    CHECK(s.syscalls[1].args[1].index == 1);
    CHECK(s.syscalls[1].args[1].value == 18446744073709551615u);
    CHECK(s.syscalls[1].args[1].value_two == 4294967296u);
    CHECK(s.syscalls[1].args[1].op == "SCMP_CMP_MASKED_EQ");
    CHECK(spec->unsupported.empty());
}

TEST_CASE("parse_config treats an empty or null seccomp object as no filter", "[spec][seccomp]") {
    for (const char* doc : {R"({"linux": {"seccomp": {}}})", R"({"linux": {"seccomp": null}})", R"({"linux": {}})"}) {
        INFO(doc);
        auto spec = parse_config(doc);
        REQUIRE(spec);
        CHECK_FALSE(spec->linux->seccomp);
        CHECK(spec->unsupported.empty());
    }
}

TEST_CASE("parse_config names the path of a malformed seccomp property", "[spec][seccomp]") {
    CHECK(seccomp_error(R"("SCMP_ACT_ALLOW")") == "linux.seccomp: expected an object");
    CHECK(seccomp_error(R"({"syscalls": []})") == "linux.seccomp.defaultAction: required property is missing");
    CHECK(seccomp_error(R"({"defaultAction": 1})") == "linux.seccomp.defaultAction: expected a string");
    CHECK(seccomp_error(R"({"defaultAction": "SCMP_ACT_ALLOW", "defaultErrnoRet": -1})") ==
          "linux.seccomp.defaultErrnoRet: expected an unsigned integer");
    CHECK(seccomp_error(R"({"defaultAction": "SCMP_ACT_ALLOW", "architectures": "SCMP_ARCH_X86"})") ==
          "linux.seccomp.architectures: expected an array");
    CHECK(seccomp_error(R"({"defaultAction": "SCMP_ACT_ALLOW", "flags": [1]})") ==
          "linux.seccomp.flags[0]: expected a string");
    CHECK(seccomp_error(R"({"defaultAction": "SCMP_ACT_ALLOW", "listenerPath": false})") ==
          "linux.seccomp.listenerPath: expected a string");
    CHECK(seccomp_error(R"({"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [{"names": ["read"], "action": "SCMP_ACT_LOG"},
                                                                          {"action": "SCMP_ACT_LOG"}]})") ==
          "linux.seccomp.syscalls[1].names: required property is missing");
    CHECK(seccomp_error(R"({"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [{"names": [], "action": "SCMP_ACT_LOG"}]})") ==
          "linux.seccomp.syscalls[0].names: must contain at least one syscall name");
    CHECK(seccomp_error(R"({"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [{"names": ["read"]}]})") ==
          "linux.seccomp.syscalls[0].action: required property is missing");
    CHECK(seccomp_error(R"({"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [{"names": ["read"], "action": "SCMP_ACT_ERRNO",
                            "args": [{"index": 0, "op": "SCMP_CMP_EQ"}]}]})") ==
          "linux.seccomp.syscalls[0].args[0].value: required property is missing");
    CHECK(seccomp_error(R"({"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [{"names": ["read"], "action": "SCMP_ACT_ERRNO",
                            "args": [{"index": 0, "value": 1}]}]})") ==
          "linux.seccomp.syscalls[0].args[0].op: required property is missing");
    CHECK(seccomp_error(R"({"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [{"names": ["read"], "action": "SCMP_ACT_ERRNO",
                            "args": [{"value": 1, "op": "SCMP_CMP_EQ"}]}]})") ==
          "linux.seccomp.syscalls[0].args[0].index: required property is missing");
}
