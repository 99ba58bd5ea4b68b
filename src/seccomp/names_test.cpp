#include "seccomp/names.hpp"

#include <catch2/catch.hpp>

#include "seccomp/test_support.hpp"

using namespace husk::seccomp;

TEST_CASE("every action, operator and architecture husk lists is one prepare_seccomp accepts", "[seccomp]") {
    for (const auto& action : action_names()) {
        INFO(action.name);
        bool takes_errno = action.kind == ActionKind::errno_ret || action.kind == ActionKind::trace;
        std::string rule = action.kind == ActionKind::notify ? R"("listenerPath": "/x", )" : "";
        auto plan = prepare_seccomp(test::parse_profile(
            "{" + rule + R"("defaultAction": "SCMP_ACT_ALLOW", "syscalls": [{"names": ["getppid"], "action": ")" +
            std::string(action.name) + "\"" + (takes_errno ? R"(, "errnoRet": 5)" : "") + "}]}"));
        CHECK(plan);
    }
    for (const auto& op : operator_names()) {
        INFO(op.name);
        CHECK(prepare_seccomp(test::parse_profile(R"({"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [{"names": ["getppid"],
            "action": "SCMP_ACT_ERRNO", "args": [{"index": 0, "value": 1, "op": ")" + std::string(op.name) + R"("}]}]})")));
    }
    for (const auto& arch : arch_names()) {
        INFO(arch.name);
        CHECK(find_arch(arch.name) == arch.token);
        CHECK(arch_name(arch.token) == arch.name);
    }
    CHECK(action_names().size() == 9);
    CHECK(operator_names().size() == 7);
    CHECK(arch_names().size() == 19);
    CHECK(flag_names().size() == 4);
}

TEST_CASE("find_* return nothing for names the spec does not define", "[seccomp]") {
    CHECK_FALSE(find_action("SCMP_ACT_KILL_ALL"));
    CHECK_FALSE(find_operator("SCMP_CMP_IN"));
    CHECK_FALSE(find_arch("SCMP_ARCH_NATIVE"));
    CHECK_FALSE(find_flag("SECCOMP_FILTER_FLAG_NEW_LISTENER"));  // husk sets it itself for SCMP_ACT_NOTIFY
    CHECK(find_action("SCMP_ACT_KILL") == ActionKind::kill_thread);
}

TEST_CASE("this kernel supports every seccomp flag and action husk knows", "[seccomp]") {
    // Linux 6.18 here; the flags need 3.17 to 5.19.
    CHECK(supported_flag_names() == std::vector<std::string>{"SECCOMP_FILTER_FLAG_TSYNC", "SECCOMP_FILTER_FLAG_LOG",
                                                             "SECCOMP_FILTER_FLAG_SPEC_ALLOW",
                                                             "SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV"});
    for (const auto& action : action_names()) {
        INFO(action.name);
        CHECK(kernel_has_action(action.kind));
    }
}
