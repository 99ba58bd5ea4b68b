// The profile husk ships: it compiles with the host's libseccomp, reads back from its own JSON, and denies
// what it lists while the rest (and the allowed forms of filtered calls) goes through.
#include "seccomp/default_profile.hpp"

#include <linux/sched.h>
#include <sched.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "seccomp/test_support.hpp"

using namespace husk::seccomp;
using namespace husk::seccomp::test;

TEST_CASE("the default profile compiles with no unknown name and no conflict", "[seccomp][default-profile]") {
    auto plan = prepare_seccomp(default_profile());
    if (!plan) FAIL(plan.error().message());
    CHECK(plan->skipped_syscalls.empty());
    CHECK(plan->resolutions.empty());
    CHECK_FALSE(plan->enosys_stub);  // the default allows: nothing new is denied by surprise
    CHECK_FALSE(plan->program.empty());
}

TEST_CASE("the default profile's JSON parses back to the same profile", "[seccomp][default-profile]") {
    std::string json = seccomp_json(default_profile());
    CHECK(json.find("\"keyctl\"") != std::string::npos);
    CHECK(seccomp_json(parse_profile(json)) == json);
}

namespace {

struct Denials {
    int keyctl = 0, bpf = 0, ptrace = 0, mount = 0, perf = 0, userns = 0, clone_userns = 0, clone3 = 0,
        io_uring = 0, personality = 0, setns = 0, open_by_handle = 0;
    int unshare_other = -1, personality_linux = -1, getpid = -1;
};

}  // namespace

TEST_CASE("the default profile denies what it lists with EPERM, clone3 with ENOSYS, and lets the rest through",
          "[seccomp][default-profile]") {
    auto plan = prepare_seccomp(default_profile());
    REQUIRE(plan);
    // Every call is made with arguments that do nothing harmful if it went through: the test would fail.
    auto outcome = run_filtered<Denials>(*plan, [] {
        Denials d;
        d.keyctl = call(SYS_keyctl, 0 /* KEYCTL_GET_KEYRING_ID */, -1, 0).error;
        d.bpf = call(SYS_bpf, -1, nullptr, 0).error;
        d.ptrace = call(SYS_ptrace, 3 /* PTRACE_PEEKUSER */, 0, 0, 0).error;
        d.mount = call(SYS_mount, nullptr, nullptr, nullptr, 0, nullptr).error;
        d.perf = call(SYS_perf_event_open, nullptr, 0, -1, -1, 0).error;
        d.userns = call(SYS_unshare, CLONE_NEWUSER).error;
        d.clone_userns = call(SYS_clone, CLONE_NEWUSER | CLONE_FS, nullptr, nullptr, nullptr, 0).error;  // EINVAL if let through
        d.clone3 = call(SYS_clone3, nullptr, 0).error;
        d.io_uring = call(SYS_io_uring_setup, 1, nullptr).error;
        d.personality = call(SYS_personality, 0x0400000 /* READ_IMPLIES_EXEC */).error;
        d.setns = call(SYS_setns, -1, 0).error;
        d.open_by_handle = call(SYS_open_by_handle_at, -1, nullptr, 0).error;
        d.unshare_other = call(SYS_unshare, 0).error;            // no flag: a no-op the rule must not catch
        d.personality_linux = call(SYS_personality, 0).error;    // PER_LINUX, what every process has
        d.getpid = call(SYS_getpid).error;
        return d;
    });
    REQUIRE(outcome.reported);
    const Denials& d = outcome.report;
    for (int err : {d.keyctl, d.bpf, d.ptrace, d.mount, d.perf, d.userns, d.clone_userns, d.io_uring, d.personality,
                    d.setns, d.open_by_handle})
        CHECK(err == EPERM);
    CHECK(d.clone3 == ENOSYS);
    CHECK(d.unshare_other == 0);
    CHECK(d.personality_linux == 0);
    CHECK(d.getpid == 0);
}

namespace {

struct Families {
    int vsock = -1, alg = -1, bluetooth = -1, unspec = -1, above_packet = -1, vsock_pair = -1;
    int unix_stream = -1, inet = -1, inet6 = -1, netlink = -1, unix_pair = -1;
};

// 0, or the errno socket(2) failed with; the socket is closed at once (nothing is ever sent on it).
int try_socket(int family, int type) {
    auto made = call(SYS_socket, family, type | SOCK_CLOEXEC, 0);
    if (made.error == 0) ::close(static_cast<int>(made.result));
    return made.error;
}

int try_socketpair(int family) {
    int fds[2];
    auto made = call(SYS_socketpair, family, SOCK_STREAM | SOCK_CLOEXEC, 0, fds);
    if (made.error == 0) {
        ::close(fds[0]);
        ::close(fds[1]);
    }
    return made.error;
}

}  // namespace

TEST_CASE("the default profile keeps the socket families a network namespace holds and refuses the others, vsock "
          "first", "[seccomp][default-profile]") {
    // On a host with vsock (a VM guest: this machine is one) the family exists, so the refusal is the filter's.
    const int vsock_here = try_socket(AF_VSOCK, SOCK_STREAM);
    if (vsock_here != 0) WARN("this host has no AF_VSOCK (" << vsock_here << "): the refusal below proves less");
    auto plan = prepare_seccomp(default_profile());
    REQUIRE(plan);
    auto outcome = run_filtered<Families>(*plan, [] {
        Families f;
        f.vsock = try_socket(AF_VSOCK, SOCK_STREAM);
        f.alg = try_socket(AF_ALG, SOCK_SEQPACKET);
        f.bluetooth = try_socket(AF_BLUETOOTH, SOCK_STREAM);
        f.unspec = try_socket(AF_UNSPEC, SOCK_STREAM);
        f.above_packet = try_socket(AF_PACKET + 1, SOCK_STREAM);
        f.vsock_pair = try_socketpair(AF_VSOCK);
        f.unix_stream = try_socket(AF_UNIX, SOCK_STREAM);
        f.inet = try_socket(AF_INET, SOCK_DGRAM);
        f.inet6 = try_socket(AF_INET6, SOCK_DGRAM);
        f.netlink = try_socket(AF_NETLINK, SOCK_RAW);
        f.unix_pair = try_socketpair(AF_UNIX);
        return f;
    });
    REQUIRE(outcome.reported);
    const Families& f = outcome.report;
    for (int err : {f.vsock, f.alg, f.bluetooth, f.unspec, f.above_packet, f.vsock_pair}) CHECK(err == EAFNOSUPPORT);
    for (int err : {f.unix_stream, f.inet, f.inet6, f.netlink, f.unix_pair}) CHECK(err == 0);
}
