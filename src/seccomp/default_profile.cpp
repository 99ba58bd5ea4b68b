#include "seccomp/default_profile.hpp"

#include <cerrno>
#include <algorithm>
#include <cstdint>
#include <iterator>
#include <vector>
#include <initializer_list>
#include <sched.h>
#include <sys/socket.h>

#include "base/json_writer.hpp"

namespace husk::seccomp {
namespace {

using Syscall = spec::Seccomp::Syscall;

Syscall deny(std::initializer_list<const char*> names, std::uint32_t err = EPERM) {
    Syscall s;
    s.names.assign(names.begin(), names.end());
    s.action = "SCMP_ACT_ERRNO";
    s.errno_ret = err;
    return s;
}

// EPERM when (argument `index` & flag) == flag.
Syscall deny_flag(const char* name, std::uint32_t index, std::uint64_t flag) {
    Syscall s = deny({name});
    s.args.push_back({index, flag, flag, "SCMP_CMP_MASKED_EQ"});
    return s;
}

// `name` denied with `err` when argument `index` compares to `value` by `op` ("SCMP_CMP_EQ", "SCMP_CMP_GT").
Syscall deny_arg(const char* name, std::uint32_t index, const char* op, std::uint64_t value, std::uint32_t err) {
    Syscall s = deny({name}, err);
    s.args.push_back({index, value, 0, op});
    return s;
}

// The socket families a sandbox keeps (docs/security.md, "Socket families"): those a network namespace holds
// (so a sandbox with --net none reaches only its own loopback through them) and that ordinary programs use.
// Every other family, AF_VSOCK first (the machine's vsock space is not namespaced: a sandbox would reach the
// hypervisor's services and bind ports the host's processes need), gets EAFNOSUPPORT, what a kernel without
// the family answers, so programs fall back. In ascending order; the last is the highest allowed.
constexpr int kept_families[] = {AF_UNIX, AF_INET, AF_INET6, AF_NETLINK, AF_PACKET};

// socket(2) and socketpair(2) refused for every family but kept_families (one rule per family below the highest
// kept one, one for all above it: libseccomp takes one comparison per argument in a rule).
void deny_other_families(std::vector<Syscall>& out) {
    constexpr int highest = kept_families[std::size(kept_families) - 1];
    for (const char* call : {"socket", "socketpair"}) {
        for (int family = 0; family < highest; ++family)
            if (std::find(std::begin(kept_families), std::end(kept_families), family) == std::end(kept_families))
                out.push_back(deny_arg(call, 0, "SCMP_CMP_EQ", static_cast<std::uint64_t>(family), EAFNOSUPPORT));
        out.push_back(deny_arg(call, 0, "SCMP_CMP_GT", highest, EAFNOSUPPORT));
    }
}

// personality(2) flags that change how memory is mapped for the caller and what it execs: make every
// readable mapping executable, map page zero (a null-dereference exploit's helper), or move the layout.
constexpr std::uint64_t read_implies_exec = 0x0400000;
constexpr std::uint64_t mmap_page_zero = 0x0100000;
constexpr std::uint64_t addr_compat_layout = 0x0200000;
constexpr std::uint64_t addr_limit_32bit = 0x0800000;
constexpr std::uint64_t addr_limit_3gb = 0x8000000;

}  // namespace

spec::Seccomp default_profile() {
    spec::Seccomp p;
    p.default_action = "SCMP_ACT_ALLOW";
    // The compat ABIs are listed so that their syscalls meet the same rules: a 32-bit program runs, and
    // cannot reach through int 0x80 what the 64-bit table refuses. (An unlisted ABI is killed.)
#if defined(__x86_64__)
    p.architectures = {"SCMP_ARCH_X86_64", "SCMP_ARCH_X86", "SCMP_ARCH_X32"};
#elif defined(__aarch64__)
    p.architectures = {"SCMP_ARCH_AARCH64", "SCMP_ARCH_ARM"};
#endif
    auto& s = p.syscalls;
    // Kernel keyrings: shared kernel state not namespaced per container.
    s.push_back(deny({"add_key", "keyctl", "request_key"}));
    // eBPF, perf: large kernel attack surface and a window on the host's activity.
    s.push_back(deny({"bpf", "perf_event_open"}));
    // Reading or changing other processes' memory.
    s.push_back(deny({"ptrace", "process_vm_readv", "process_vm_writev"}));
    // The mount table, old and new APIs.
    s.push_back(deny({"mount", "umount", "umount2", "pivot_root", "move_mount", "open_tree", "fsopen", "fsconfig",
                      "fsmount", "fspick", "mount_setattr"}));
    // New user namespaces give the holder every capability over fresh namespaces: the doorway of most
    // unprivileged kernel exploits. setns joins namespaces the container was kept out of.
    s.push_back(deny_flag("unshare", 0, CLONE_NEWUSER));
    s.push_back(deny_flag("clone", 0, CLONE_NEWUSER));
    s.push_back(deny({"setns"}));
    // clone3 passes its flags in memory a filter cannot read: ENOSYS makes libc fall back to clone, which
    // the rule above filters.
    s.push_back(deny({"clone3"}, ENOSYS));
    // The host kernel itself: modules, kexec, reboot, swap, accounting, quotas.
    s.push_back(deny({"init_module", "finit_module", "delete_module", "create_module", "query_module",
                      "get_kernel_syms", "kexec_load", "kexec_file_load", "reboot", "swapon", "swapoff", "acct",
                      "quotactl", "quotactl_fd", "nfsservctl", "uselib", "_sysctl", "lookup_dcookie", "vhangup",
                      "syslog", "iopl", "ioperm", "vm86", "vm86old"}));
    // Host clocks.
    s.push_back(deny({"settimeofday", "stime", "clock_settime", "clock_settime64", "adjtimex", "clock_adjtime",
                      "clock_adjtime64"}));
    // Page-fault handling from user space: a classic way to widen kernel race windows.
    s.push_back(deny({"userfaultfd"}));
    // io_uring: a second syscall interface the filter cannot see into, with a long CVE record. EPERM is what
    // a kernel with io_uring_disabled=2 answers, so libraries already fall back.
    s.push_back(deny({"io_uring_setup", "io_uring_enter", "io_uring_register"}));
    // Opening files by handle steps around the mount namespace (the "shocker" escape).
    s.push_back(deny({"name_to_handle_at", "open_by_handle_at"}));
    for (std::uint64_t flag : {read_implies_exec, mmap_page_zero, addr_compat_layout, addr_limit_32bit, addr_limit_3gb})
        s.push_back(deny_flag("personality", 0, flag));
    // x86's socketcall(2) carries socket's arguments in memory a filter cannot read. libseccomp turns each family
    // rule into one for socketcall(SYS_SOCKET) (and SYS_SOCKETPAIR) without the family, so the 32-bit ABI cannot
    // step around them: there a program creates no socket through socketcall at all (EAFNOSUPPORT), only through
    // the direct socket(2) and socketpair(2) x86-32 has had since Linux 4.3, which the rules filter by family.
    deny_other_families(s);
    return p;
}

std::string seccomp_json(const spec::Seccomp& profile, bool pretty) {
    JsonWriter w(pretty ? JsonWriter::Style::pretty : JsonWriter::Style::compact);
    w.begin_object().key("defaultAction").string(profile.default_action);
    if (profile.default_errno_ret) w.key("defaultErrnoRet").unsigned_integer(*profile.default_errno_ret);
    w.key("architectures").begin_array();
    for (const auto& arch : profile.architectures) w.string(arch);
    w.end_array().key("syscalls").begin_array();
    for (const auto& syscall : profile.syscalls) {
        w.begin_object().key("names").begin_array();
        for (const auto& name : syscall.names) w.string(name);
        w.end_array().key("action").string(syscall.action);
        if (syscall.errno_ret) w.key("errnoRet").unsigned_integer(*syscall.errno_ret);
        if (!syscall.args.empty()) {
            w.key("args").begin_array();
            for (const auto& arg : syscall.args)
                w.begin_object()
                    .key("index").unsigned_integer(arg.index)
                    .key("value").unsigned_integer(arg.value)
                    .key("valueTwo").unsigned_integer(arg.value_two)
                    .key("op").string(arg.op)
                    .end_object();
            w.end_array();
        }
        w.end_object();
    }
    w.end_array().end_object();
    return w.str();
}

}  // namespace husk::seccomp
