// The ENOSYS stub against the real kernel: x86_64 native calls, x32 numbers (the x32 bit is checked before
// any limit) and i386 calls through int $0x80 (a second arch in one filter).
#include <linux/audit.h>
#include <linux/seccomp.h>
#include <sys/syscall.h>

#include <csignal>
#include <cstddef>

#include "seccomp/enosys_stub.hpp"
#include "seccomp/kernel.hpp"
#include "seccomp/test_support.hpp"

using namespace husk::seccomp::test;
using husk::seccomp::kX32SyscallBit;

namespace {

// Allowed: write 1, exit 60, getppid 110, exit_group 231 (x86_64), so the highest number named is 231.
// i386: write 4, exit 1, getppid 64, exit_group 252.
std::string deny_by_default(const std::string& extra = "") {
    return R"({"defaultAction": "SCMP_ACT_ERRNO", "syscalls": [)" + std::string(kReportingAllowed) +
           R"(, {"names": ["getppid"], "action": "SCMP_ACT_ALLOW"}])" + extra + "}";
}

#if defined(__x86_64__)
// An i386 system call from this 64-bit process: the kernel reports it with AUDIT_ARCH_I386. The compat
// entry does not preserve r8-r15 for a 64-bit caller, hence the clobbers.
long int80(long number) {
    int result;
    asm volatile("int $0x80"
                 : "=a"(result)
                 : "a"(number), "b"(0), "c"(0), "d"(0)
                 : "memory", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15");
    return result;
}

// int $0x80 may be missing (CONFIG_IA32_EMULATION off, ia32_emulation=0) or fault (some hypervisors raise
// #GP for it): probe in a child, which may die of SIGSEGV.
bool int80_works() {
    pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        std::signal(SIGSEGV, SIG_DFL);  // not Catch's handler, which would report a failure from the child
        ::_exit(int80(20) == ::getpid() ? 0 : 1);  // i386 getpid
    }
    int status = 0;
    REQUIRE(::waitpid(pid, &status, 0) == pid);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}
#endif

struct Four {
    Call a, b, c, d;
};

// Runs the stub alone on one (arch, nr): its return value, or kFilter when it falls through to where
// libseccomp's program would start. Only the instructions the stub uses are implemented.
constexpr std::uint32_t kFilter = 0xffffffff;
constexpr std::uint32_t kEnosys = SECCOMP_RET_ERRNO | ENOSYS;

std::uint32_t run_stub(const std::vector<sock_filter>& stub, std::uint32_t arch, std::uint32_t nr) {
    std::uint32_t a = 0;
    for (std::size_t pc = 0; pc < stub.size(); ++pc) {
        const sock_filter& i = stub[pc];
        switch (i.code) {
            case BPF_LD | BPF_W | BPF_ABS: a = i.k == offsetof(seccomp_data, arch) ? arch : nr; break;
            case BPF_RET | BPF_K: return i.k;
            case BPF_JMP | BPF_JA: pc += i.k; break;
            case BPF_JMP | BPF_JEQ | BPF_K: pc += a == i.k ? i.jt : i.jf; break;
            case BPF_JMP | BPF_JGT | BPF_K: pc += a > i.k ? i.jt : i.jf; break;
            case BPF_JMP | BPF_JSET | BPF_K: pc += (a & i.k) ? i.jt : i.jf; break;
            default: FAIL("unexpected BPF instruction " << i.code);
        }
    }
    return kFilter;
}

}  // namespace

TEST_CASE("the ENOSYS stub dispatches on the arch and checks the x32 bit before any limit", "[seccomp]") {
    using husk::seccomp::StubArch;
    std::vector<StubArch> archs{{AUDIT_ARCH_AARCH64, 100, std::nullopt},
                                {AUDIT_ARCH_X86_64, 300, kX32SyscallBit | 200},
                                {AUDIT_ARCH_ARM, std::nullopt, std::nullopt},  // no limit: left alone
                                {AUDIT_ARCH_S390X, 400, std::nullopt},
                                {AUDIT_ARCH_I386, 250, std::nullopt}};
    auto stub = husk::seccomp::make_enosys_stub(archs);
    CHECK(run_stub(stub, AUDIT_ARCH_AARCH64, 100) == kFilter);
    CHECK(run_stub(stub, AUDIT_ARCH_AARCH64, 101) == kEnosys);
    CHECK(run_stub(stub, AUDIT_ARCH_X86_64, 300) == kFilter);
    CHECK(run_stub(stub, AUDIT_ARCH_X86_64, 301) == kEnosys);
    CHECK(run_stub(stub, AUDIT_ARCH_X86_64, kX32SyscallBit | 200) == kFilter);
    CHECK(run_stub(stub, AUDIT_ARCH_X86_64, kX32SyscallBit | 201) == kEnosys);
    CHECK(run_stub(stub, AUDIT_ARCH_X86_64, kX32SyscallBit | 5) == kFilter);
    CHECK(run_stub(stub, AUDIT_ARCH_ARM, 100000) == kFilter);
    CHECK(run_stub(stub, AUDIT_ARCH_S390X, 0) == kEnosys);  // s390's multiplexer number
    CHECK(run_stub(stub, AUDIT_ARCH_S390X, 1) == kFilter);
    CHECK(run_stub(stub, AUDIT_ARCH_S390X, 401) == kEnosys);
    CHECK(run_stub(stub, AUDIT_ARCH_I386, 250) == kFilter);
    CHECK(run_stub(stub, AUDIT_ARCH_I386, 251) == kEnosys);
    CHECK(run_stub(stub, AUDIT_ARCH_MIPS, 100000) == kFilter);  // not in the filter: libseccomp's bad-arch action
    // x86_64 without x32 in the filter: x32 numbers go to libseccomp, whatever their value.
    std::vector<StubArch> native_only{{AUDIT_ARCH_X86_64, 300, std::nullopt}};
    auto plain = husk::seccomp::make_enosys_stub(native_only);
    CHECK(run_stub(plain, AUDIT_ARCH_X86_64, kX32SyscallBit | 1000) == kFilter);
    CHECK(run_stub(plain, AUDIT_ARCH_X86_64, 1000) == kEnosys);
}

TEST_CASE("make_enosys_stub emits nothing without limits", "[seccomp]") {
    CHECK(husk::seccomp::make_enosys_stub({}).empty());
    husk::seccomp::StubArch none{0xc000003e, std::nullopt, std::nullopt};
    CHECK(husk::seccomp::make_enosys_stub({&none, 1}).empty());
}

TEST_CASE("a syscall above the profile's highest gets ENOSYS, a lower unlisted one the default errno", "[seccomp]") {
    auto plan = prepare(deny_by_default());
    CHECK(plan.enosys_stub);
    auto outcome = run_filtered<Four>(plan, [] {
        char buffer[8];
        return Four{call(SYS_getppid), call(SYS_getuid), call(SYS_getrandom, buffer, sizeof buffer, 0), call(1000)};
    });
    REQUIRE(outcome.reported);
    CHECK(outcome.report.a.result == ::getpid());
    CHECK(outcome.report.b.error == EPERM);   // getuid, 102 <= 231
    CHECK(outcome.report.c.error == ENOSYS);  // getrandom, 318 > 231: glibc would fall back
    CHECK(outcome.report.d.error == ENOSYS);
}

TEST_CASE("the ENOSYS stub replaces kill and trap defaults for newer syscalls only", "[seccomp]") {
    for (const char* action : {"SCMP_ACT_KILL_PROCESS", "SCMP_ACT_KILL_THREAD", "SCMP_ACT_TRAP"}) {
        INFO(action);
        std::string profile = R"({"defaultAction": ")" + std::string(action) + R"(", "syscalls": [)" +
                              kReportingAllowed + "]}";
        auto plan = prepare(profile);
        auto newer = run_filtered<Call>(plan, [] { return call(SYS_getrandom, nullptr, 0, 0); });
        REQUIRE(newer.reported);
        CHECK(newer.report.error == ENOSYS);
        auto older = run_filtered<Call>(plan, [] { return call(SYS_getuid); });
        CHECK(older.killed_by(SIGSYS));
    }
}

TEST_CASE("no ENOSYS stub when the default lets calls through or already is ENOSYS", "[seccomp]") {
    CHECK_FALSE(prepare(R"({"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [{"names": ["read"], "action": "SCMP_ACT_ERRNO"}]})").enosys_stub);
    CHECK_FALSE(prepare(R"({"defaultAction": "SCMP_ACT_LOG", "syscalls": [{"names": ["read"], "action": "SCMP_ACT_ERRNO"}]})").enosys_stub);
    CHECK_FALSE(prepare(R"({"defaultAction": "SCMP_ACT_TRACE", "syscalls": [{"names": ["read"], "action": "SCMP_ACT_ALLOW"}]})").enosys_stub);
    CHECK_FALSE(prepare(R"({"defaultAction": "SCMP_ACT_ERRNO", "defaultErrnoRet": 38, "syscalls": [{"names": ["read"], "action": "SCMP_ACT_ALLOW"}]})").enosys_stub);
    CHECK_FALSE(prepare(R"({"defaultAction": "SCMP_ACT_ERRNO"})").enosys_stub);  // no syscall named: no limit
}

#if defined(__x86_64__)
TEST_CASE("x32 numbers never meet the x86_64 limit: without SCMP_ARCH_X32 libseccomp kills them", "[seccomp]") {
    auto plan = prepare(deny_by_default());
    // 0x40000000 | 318 is above 231 but must not get ENOSYS: it is an x32 call, not in the filter.
    auto outcome = run_filtered<Call>(plan, [] { return call(kX32SyscallBit | SYS_getrandom); });
    CHECK(outcome.killed_by(SIGSYS));  // libseccomp's bad-arch action
}

TEST_CASE("with SCMP_ARCH_X32 the stub gives x32 calls their own limit", "[seccomp]") {
    auto plan = prepare(deny_by_default(R"(, "architectures": ["SCMP_ARCH_X86_64", "SCMP_ARCH_X32"])"));
    auto outcome = run_filtered<Four>(plan, [] {
        return Four{call(kX32SyscallBit | SYS_getrandom), call(kX32SyscallBit | SYS_getuid), call(SYS_getrandom, nullptr, 0, 0),
                    call(SYS_getuid)};
    });
    REQUIRE(outcome.reported);
    CHECK(outcome.report.a.error == ENOSYS);
    CHECK(outcome.report.b.error == EPERM);
    CHECK(outcome.report.c.error == ENOSYS);
    CHECK(outcome.report.d.error == EPERM);
}

TEST_CASE("with SCMP_ARCH_X86 the stub limits i386 calls by the i386 numbers", "[seccomp]") {
    if (!int80_works()) {
        WARN("int $0x80 is not available here (no IA32 emulation, or the hypervisor refuses it): not tested");
        return;
    }
    auto plan = prepare(deny_by_default(R"(, "architectures": ["SCMP_ARCH_X86"])"));
    struct Report {
        long getppid, getuid, getrandom, beyond;
    };
    auto outcome = run_filtered<Report>(plan, [] { return Report{int80(64), int80(24), int80(355), int80(2000)}; });
    REQUIRE(outcome.reported);
    CHECK(outcome.report.getppid == ::getpid());
    CHECK(outcome.report.getuid == -EPERM);      // 24 <= 252
    CHECK(outcome.report.getrandom == -ENOSYS);  // 355 > 252
    CHECK(outcome.report.beyond == -ENOSYS);
    auto without = run_filtered<Report>(prepare(deny_by_default()), [] { return Report{int80(64), 0, 0, 0}; });
    CHECK(without.killed_by(SIGSYS));  // i386 is not in that filter: libseccomp's bad-arch action
}
#endif
