// prepare_seccomp: the resolved profile → libseccomp → BPF, with the ENOSYS stub in front when the default
// action denies. libseccomp is used only here, in the parent; the child loads the exported program itself.
#include "seccomp/filter.hpp"

#include <linux/audit.h>
#include <seccomp.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>

#include "husk/unique_fd.hpp"
#include "seccomp/cache.hpp"
#include "seccomp/enosys_stub.hpp"
#include "seccomp/kernel.hpp"
#include "seccomp/profile.hpp"

namespace husk::seccomp {
namespace {

struct ReleaseFilter {
    void operator()(void* ctx) const { seccomp_release(ctx); }
};
using FilterContext = std::unique_ptr<void, ReleaseFilter>;  // scmp_filter_ctx

// libseccomp returns -errno.
Error libseccomp_error(const std::string& what, int rc) {
    Error e = Error::msg(what);
    e.err = -rc;
    return e;
}

// seccomp_export_bpf writes to an fd (libseccomp 2.5 has no in-memory export): a memfd, read back.
Result<std::vector<sock_filter>> export_program(scmp_filter_ctx ctx) {
    UniqueFd memfd(::memfd_create("husk-seccomp-bpf", MFD_CLOEXEC));
    if (!memfd) return fail_sys(errno, "memfd_create", "husk-seccomp-bpf");
    if (int rc = seccomp_export_bpf(ctx, memfd.get()); rc < 0) return fail(libseccomp_error("seccomp_export_bpf", rc));
    off_t size = ::lseek(memfd.get(), 0, SEEK_END);
    if (size < 0) return fail_sys(errno, "lseek", "husk-seccomp-bpf");
    if (size == 0 || size % static_cast<off_t>(sizeof(sock_filter)) != 0)
        return fail_msg("seccomp_export_bpf: " + std::to_string(size) + " bytes is not a BPF program");
    std::vector<sock_filter> program(static_cast<std::size_t>(size) / sizeof(sock_filter));
    auto* bytes = reinterpret_cast<char*>(program.data());
    for (off_t done = 0; done < size;) {
        ssize_t n = ::pread(memfd.get(), bytes + done, static_cast<std::size_t>(size - done), done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return fail_sys(n < 0 ? errno : EIO, "read", "husk-seccomp-bpf");
        done += n;
    }
    return program;
}

Result<void> add_architectures(scmp_filter_ctx ctx, const spec::Seccomp& seccomp, const Profile& profile) {
    for (std::size_t k = 0; k < profile.architectures.size(); ++k) {
        int rc = seccomp_arch_add(ctx, profile.architectures[k]);
        if (rc == -EEXIST) continue;  // the native arch, or listed twice
        // EDOM: libseccomp cannot mix byte orders in one filter (e.g. SCMP_ARCH_PPC64 on x86_64).
        if (rc < 0)
            return fail(libseccomp_error("linux.seccomp.architectures[" + std::to_string(k) + "]: cannot add \"" +
                                             seccomp.architectures[k] + "\" to a filter for this machine", rc));
    }
    return {};
}

Result<void> add_rules(scmp_filter_ctx ctx, const Profile& profile) {
    // libseccomp's binary tree layout pays off for long lists; 2.5.4 misbehaves with it and no rules, and
    // failure only means an older libseccomp (runc does the same above 32 rules).
    if (profile.rules.size() > 32) (void)seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2);
    for (const Rule& rule : profile.rules) {
        auto add = [&](const std::vector<scmp_arg_cmp>& comparisons) -> Result<void> {
            int rc = seccomp_rule_add_array(ctx, rule.action.value, rule.number,
                                            static_cast<unsigned>(comparisons.size()), comparisons.data());
            if (rc < 0)
                return fail(libseccomp_error("linux.seccomp.syscalls[" + std::to_string(rule.entry) +
                                                 "]: cannot add the rule for \"" + rule.name + "\"", rc));
            return {};
        };
        if (rule.alternatives.empty()) TRY(add({}));
        for (const auto& comparisons : rule.alternatives) TRY(add(comparisons));
    }
    return {};
}

// libseccomp's program for the resolved profile.
Result<std::vector<sock_filter>> compile_program(const spec::Seccomp& seccomp, const Profile& profile) {
    FilterContext ctx(seccomp_init(profile.default_action.value));
    if (!ctx) return fail_msg("seccomp_init: libseccomp refused linux.seccomp.defaultAction \"" + seccomp.default_action + "\"");
    // Architectures first: a rule reaches only the architectures present when it is added.
    TRY(add_architectures(ctx.get(), seccomp, profile));
    TRY(add_rules(ctx.get(), profile));
    return export_program(ctx.get());
}

// One StubArch per AUDIT_ARCH value in the filter, with the highest number the profile names there.
std::vector<StubArch> stub_limits(const Profile& profile) {
    std::vector<std::uint32_t> tokens{seccomp_arch_native()};
    for (std::uint32_t token : profile.architectures)
        if (std::find(tokens.begin(), tokens.end(), token) == tokens.end()) tokens.push_back(token);
    std::vector<StubArch> archs;
    for (std::uint32_t token : tokens) {
        std::optional<std::uint32_t> max;
        for (const std::string& name : profile.known_names) {
            int number = seccomp_syscall_resolve_name_arch(token, name.c_str());
            // Negative: not a syscall on this arch, or one of libseccomp's pseudo numbers.
            if (number >= 0) max = std::max(max.value_or(0), static_cast<std::uint32_t>(number));
        }
        bool x32 = token == SCMP_ARCH_X32;
        std::uint32_t audit_arch = x32 ? AUDIT_ARCH_X86_64 : token;
        auto it = std::find_if(archs.begin(), archs.end(), [&](const StubArch& a) { return a.audit_arch == audit_arch; });
        if (it == archs.end()) it = archs.insert(archs.end(), StubArch{audit_arch, std::nullopt, std::nullopt});
        (x32 ? it->max_x32 : it->max) = max;
    }
    return archs;
}

// The errnos a call can get from this filter: ENOSYS (the stub, or a tracer/agent that is absent), the
// default action's and each errno rule's.
std::vector<int> denial_errnos(const Profile& profile) {
    std::vector<int> errnos{ENOSYS};
    auto add = [&](const Action& action) {
        int err = static_cast<int>(action.value & SECCOMP_RET_DATA);
        if (action.kind == ActionKind::errno_ret && std::find(errnos.begin(), errnos.end(), err) == errnos.end())
            errnos.push_back(err);
    };
    add(profile.default_action);
    for (const Rule& rule : profile.rules) add(rule.action);
    return errnos;
}

}  // namespace

Result<SeccompPlan> prepare_seccomp(const spec::Seccomp& seccomp, const SeccompOptions& options) {
    Profile profile = TRY(resolve_profile(seccomp, options));
    const std::string cache_key = options.cache_root.empty() ? std::string() : program_cache_key(profile);
    std::optional<std::vector<sock_filter>> program = read_cached_program(options.cache_root, cache_key);
    if (!program) {
        program = TRY(compile_program(seccomp, profile));
        if (!cache_key.empty()) store_cached_program(options.cache_root, cache_key, *program);
    }

    SeccompPlan plan;
    if (default_denies(profile.default_action)) plan.program = make_enosys_stub(stub_limits(profile));
    plan.enosys_stub = !plan.program.empty();
    plan.program.insert(plan.program.end(), program->begin(), program->end());
    if (plan.program.size() > BPF_MAXINSNS)
        return fail_msg("linux.seccomp: the filter has " + std::to_string(plan.program.size()) +
                        " BPF instructions; the kernel takes at most " + std::to_string(BPF_MAXINSNS));
    plan.flags = profile.flags;
    plan.uses_notify = profile.uses_notify;
    plan.listener_path = seccomp.listener_path;
    plan.listener_metadata = seccomp.listener_metadata;
    plan.skipped_syscalls = std::move(profile.skipped_names);
    plan.resolutions = std::move(profile.resolutions);
    plan.denial_errnos = denial_errnos(profile);
    return plan;
}

}  // namespace husk::seccomp
