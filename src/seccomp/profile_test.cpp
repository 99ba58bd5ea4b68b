// prepare_seccomp's refusals, each naming the field, and the plan it builds.
#include <catch2/catch.hpp>

#include "seccomp/kernel.hpp"
#include "seccomp/test_support.hpp"

using namespace husk::seccomp;
using namespace husk::seccomp::test;

namespace {

std::string with_rule(const std::string& rule, const std::string& extra = "") {
    return R"({"defaultAction": "SCMP_ACT_ERRNO", "syscalls": [{"names": ["read"], "action": "SCMP_ACT_ALLOW"}, )" + rule +
           "]" + extra + "}";
}

}  // namespace

TEST_CASE("prepare_seccomp names the field of an unknown action, architecture, operator or flag", "[seccomp]") {
    CHECK(prepare_error(R"({"defaultAction": "SCMP_ACT_NOPE"})") == "linux.seccomp.defaultAction: unknown action \"SCMP_ACT_NOPE\"");
    CHECK(prepare_error(with_rule(R"({"names": ["write"], "action": "X"})")) ==
          "linux.seccomp.syscalls[1].action: unknown action \"X\"");
    CHECK(prepare_error(R"({"defaultAction": "SCMP_ACT_ALLOW", "architectures": ["SCMP_ARCH_X86", "SCMP_ARCH_LOONGARCH64"]})") ==
          "linux.seccomp.architectures[1]: unknown architecture \"SCMP_ARCH_LOONGARCH64\"");
    CHECK(prepare_error(with_rule(R"({"names": ["write"], "action": "SCMP_ACT_ERRNO",
                                      "args": [{"index": 0, "value": 1, "op": "SCMP_CMP_IN"}]})")) ==
          "linux.seccomp.syscalls[1].args[0].op: unknown operator \"SCMP_CMP_IN\"");
    CHECK(prepare_error(R"({"defaultAction": "SCMP_ACT_ALLOW", "flags": ["SECCOMP_FILTER_FLAG_LOG", "SECCOMP_FILTER_FLAG_NEW_LISTENER"]})") ==
          "linux.seccomp.flags[1]: unknown flag \"SECCOMP_FILTER_FLAG_NEW_LISTENER\"");
}

TEST_CASE("prepare_seccomp refuses an unknown syscall name, naming it", "[seccomp]") {
    CHECK(prepare_error(with_rule(R"({"names": ["write", "no_such_syscall"], "action": "SCMP_ACT_ALLOW"})")).starts_with(
        "linux.seccomp.syscalls[1].names[1]: unknown syscall \"no_such_syscall\" (libseccomp 2."));
}

TEST_CASE("UnknownSyscalls::skip_allowed drops unknown names only where the call stays denied", "[seccomp]") {
    SeccompOptions skip{UnknownSyscalls::skip_allowed};
    // An allow rule under a denying default: the name is dropped, the call keeps the default (or ENOSYS).
    auto plan = prepare(with_rule(R"({"names": ["write", "no_such_syscall"], "action": "SCMP_ACT_ALLOW"})"), skip);
    CHECK(plan.skipped_syscalls == std::vector<std::string>{"no_such_syscall"});
    // A rule that repeats the default action changes nothing either.
    CHECK(prepare(with_rule(R"({"names": ["later_syscall"], "action": "SCMP_ACT_ERRNO"})"), skip).skipped_syscalls ==
          std::vector<std::string>{"later_syscall"});
    // A deny rule (or an allow rule under an allowing default) would be lost: still an error.
    CHECK(prepare_error(with_rule(R"({"names": ["no_such_syscall"], "action": "SCMP_ACT_KILL"})"), skip)
              .starts_with("linux.seccomp.syscalls[1].names[0]: unknown syscall \"no_such_syscall\""));
    CHECK(prepare_error(R"({"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [{"names": ["no_such_syscall"],
                           "action": "SCMP_ACT_ERRNO"}]})", skip)
              .starts_with("linux.seccomp.syscalls[0].names[0]: unknown syscall"));
    CHECK(prepare_error(R"({"defaultAction": "SCMP_ACT_LOG", "syscalls": [{"names": ["no_such_syscall"],
                           "action": "SCMP_ACT_ALLOW"}]})", skip)
              .starts_with("linux.seccomp.syscalls[0].names[0]: unknown syscall"));
}

TEST_CASE("prepare_seccomp checks errnoRet against the action", "[seccomp]") {
    CHECK(prepare_error(with_rule(R"({"names": ["write"], "action": "SCMP_ACT_ALLOW", "errnoRet": 1})")) ==
          "linux.seccomp.syscalls[1].errnoRet: SCMP_ACT_ALLOW takes no errno (only SCMP_ACT_ERRNO and SCMP_ACT_TRACE do)");
    CHECK(prepare_error(R"({"defaultAction": "SCMP_ACT_KILL", "defaultErrnoRet": 1})") ==
          "linux.seccomp.defaultErrnoRet: SCMP_ACT_KILL takes no errno (only SCMP_ACT_ERRNO and SCMP_ACT_TRACE do)");
    CHECK(prepare_error(with_rule(R"({"names": ["write"], "action": "SCMP_ACT_ERRNO", "errnoRet": 4096})")) ==
          "linux.seccomp.syscalls[1].errnoRet: 4096 is not an errno (0-4095)");
    CHECK(prepare_error(with_rule(R"({"names": ["write"], "action": "SCMP_ACT_TRACE", "errnoRet": 65536})")) ==
          "linux.seccomp.syscalls[1].errnoRet: 65536 does not fit in 16 bits");
    CHECK(prepare_error(with_rule(R"({"names": ["write"], "action": "SCMP_ACT_ERRNO",
                                      "args": [{"index": 6, "value": 1, "op": "SCMP_CMP_EQ"}]})")) ==
          "linux.seccomp.syscalls[1].args[0].index: 6 is not a syscall argument index (0-5)");
}

TEST_CASE("prepare_seccomp refuses a conditional rule libseccomp would merge with an unconditional one", "[seccomp]") {
    CHECK(prepare_error(with_rule(R"({"names": ["read"], "action": "SCMP_ACT_KILL",
                                      "args": [{"index": 0, "value": 1, "op": "SCMP_CMP_EQ"}]})")) ==
          "linux.seccomp.syscalls[1]: \"read\" also has a different action in syscalls[0]; one of them is "
          "conditional, and libseccomp would keep only one action");
    // Same action twice, or different actions on disjoint conditions, are fine.
    CHECK(prepare_seccomp(parse_profile(with_rule(R"({"names": ["read"], "action": "SCMP_ACT_ALLOW"})"))));
    CHECK(prepare_seccomp(parse_profile(R"({"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [
        {"names": ["getpgid"], "action": "SCMP_ACT_ERRNO", "args": [{"index": 0, "value": 1, "op": "SCMP_CMP_EQ"}]},
        {"names": ["getpgid"], "action": "SCMP_ACT_KILL", "args": [{"index": 0, "value": 2, "op": "SCMP_CMP_EQ"}]}]})")));
}

TEST_CASE("prepare_seccomp applies the notify rules of the spec and of husk", "[seccomp]") {
    CHECK(prepare_error(R"({"defaultAction": "SCMP_ACT_NOTIFY", "listenerPath": "/x"})") ==
          "linux.seccomp.defaultAction: SCMP_ACT_NOTIFY cannot be the default action");
    CHECK(prepare_error(R"({"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [{"names": ["getppid"], "action": "SCMP_ACT_NOTIFY"}]})") ==
          "linux.seccomp.listenerPath: is required when a rule uses SCMP_ACT_NOTIFY (no agent would get the fd)");
    CHECK(prepare_error(R"({"defaultAction": "SCMP_ACT_ALLOW", "listenerMetadata": "m"})") ==
          "linux.seccomp.listenerMetadata: is set without listenerPath");
    CHECK(prepare_error(R"({"defaultAction": "SCMP_ACT_ALLOW", "listenerPath": "/x",
                           "syscalls": [{"names": ["getppid", "sendmsg"], "action": "SCMP_ACT_NOTIFY"}]})")
              .starts_with("linux.seccomp.syscalls[0].names[1]: SCMP_ACT_NOTIFY cannot apply to \"sendmsg\""));
    CHECK(prepare_error(R"({"defaultAction": "SCMP_ACT_ALLOW", "flags": ["SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV"]})") ==
          "linux.seccomp.flags[0]: SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV needs a rule with SCMP_ACT_NOTIFY");
    auto plan = prepare(R"({"defaultAction": "SCMP_ACT_ALLOW", "listenerPath": "/run/agent.sock", "listenerMetadata": "m",
        "flags": ["SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV"],
        "syscalls": [{"names": ["getppid"], "action": "SCMP_ACT_NOTIFY"}]})");
    CHECK(plan.uses_notify);
    CHECK(plan.flags == kFlagWaitKillableRecv);
    CHECK(plan.listener_path == "/run/agent.sock");
    CHECK(plan.listener_metadata == "m");
    // listenerPath without a notify rule is ignored, as the spec says.
    CHECK_FALSE(prepare(R"({"defaultAction": "SCMP_ACT_ALLOW", "listenerPath": "/x"})").uses_notify);
}

TEST_CASE("prepare_seccomp reports an architecture libseccomp cannot mix into this filter", "[seccomp]") {
    // libseccomp keeps one byte order per filter: big-endian ppc64 next to x86_64 is EDOM.
    CHECK(prepare_error(R"({"defaultAction": "SCMP_ACT_ALLOW", "architectures": ["SCMP_ARCH_X86_64", "SCMP_ARCH_PPC64"]})") ==
          "linux.seccomp.architectures[1]: cannot add \"SCMP_ARCH_PPC64\" to a filter for this machine: numerical "
          "argument out of domain");
    CHECK(prepare(R"({"defaultAction": "SCMP_ACT_ALLOW", "architectures": ["SCMP_ARCH_X86_64", "SCMP_ARCH_X86",
        "SCMP_ARCH_X32", "SCMP_ARCH_AARCH64", "SCMP_ARCH_ARM", "SCMP_ARCH_RISCV64"]})").program.size() > 0);
}

TEST_CASE("prepare_seccomp builds a loadable program for a long default-deny profile", "[seccomp]") {
    // More than 32 rules switches libseccomp to its binary-tree layout.
    std::string names;
    for (const char* name : {"read", "write", "open", "close", "stat", "fstat", "lstat", "poll", "lseek", "mmap",
                             "mprotect", "munmap", "brk", "rt_sigaction", "rt_sigprocmask", "ioctl", "pread64",
                             "pwrite64", "readv", "writev", "access", "pipe", "select", "sched_yield", "mremap",
                             "msync", "mincore", "madvise", "dup", "dup2", "pause", "nanosleep", "getitimer",
                             "alarm", "setitimer", "getpid", "exit", "exit_group", "getppid"})
        names += std::string(names.empty() ? "" : ", ") + "\"" + name + "\"";
    auto plan = prepare(R"({"defaultAction": "SCMP_ACT_ERRNO", "syscalls": [{"names": [)" + names +
                        R"(], "action": "SCMP_ACT_ALLOW"}]})");
    CHECK(plan.enosys_stub);
    auto outcome = run_filtered<Call>(plan, [] { return call(SYS_getuid); });
    REQUIRE(outcome.reported);
    CHECK(outcome.report.error == EPERM);
}
