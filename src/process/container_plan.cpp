#include "process/container_plan.hpp"

#include <fcntl.h>
#include <sched.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <string>

#include "init/sealed_init.hpp"

namespace husk::process {
namespace {

// The ipc, network and uts namespaces the container joins by path, for the sysctl host-namespace check.
sysctl::JoinedNamespaces joined_for_sysctl(const ns::NamespacePlan& namespaces) {
    sysctl::JoinedNamespaces joined;
    for (const ns::Join& join : namespaces.joins) {
        if (join.type == CLONE_NEWIPC) joined.ipc = join.fd.get();
        if (join.type == CLONE_NEWNET) joined.network = join.fd.get();
        if (join.type == CLONE_NEWUTS) joined.uts = join.fd.get();
    }
    return joined;
}

}  // namespace

Result<ContainerPlan> prepare_container(const spec::Spec& spec, const PlanOptions& options) {
    static const spec::Linux no_linux;
    const spec::Linux& linux = spec.linux ? *spec.linux : no_linux;
    // One member at a time, not an aggregate initializer of TRYs: g++ does not destroy the members already
    // built when a TRY returns from the middle of one, so a refused capability leaked the prepared mounts and
    // the namespace fds (LeakSanitizer saw it at husk's exit).
    ContainerPlan plan;
    plan.namespaces = TRY(ns::prepare_namespaces(linux, options.rootless));
    plan.rootfs = TRY(mnt::prepare_rootfs(
        spec, options.rootfs,
        mnt::RootfsOptions{.no_pivot = options.no_pivot,
                           .terminal = spec.process->terminal,
                           .bundle = options.bundle,
                           .root_tmpfs = options.root_tmpfs,
                           .cgroup2_mount = options.cgroup2_mount,
                           .rootless = options.rootless}));
    plan.credentials = TRY(caps::prepare_credentials(*spec.process));
    plan.rlimits = TRY(rlimit::prepare_rlimits(*spec.process, options.address_space));
    plan.loopback = TRY(net::prepare_loopback());
    plan.create_container_hooks = TRY(hooks::prepare_child_hooks(spec.hooks.create_container, "createContainer"));
    plan.start_container_hooks = TRY(hooks::prepare_child_hooks(spec.hooks.start_container, "startContainer"));
    plan.setup_hooks = !spec.hooks.prestart.empty() || !spec.hooks.create_runtime.empty() ||
                       !spec.hooks.create_container.empty() || !spec.hooks.start_container.empty();
    plan.uts = ns::prepare_uts(spec);
    plan.workload = TRY(prepare_workload(spec, options.preserve_fds));
    // sysctl needs the namespaces opened above; prepare_confinement gives the confinement.
    plan.sysctl = TRY(sysctl::prepare_sysctl(linux.sysctl, joined_for_sysctl(plan.namespaces)));
    plan.confinement = TRY(prepare_confinement(spec, options.seccomp_skip_unknown, plan.credentials,
                                               options.seccomp_cache_root));
    if (options.husk_init) {
        plan.init = TRY(init::open_sealed_init());
        int report[2];
        if (::pipe2(report, O_CLOEXEC) != 0) return fail_sys(errno, "pipe2", "husk-init report");
        plan.init_report_read.reset(report[0]);
        plan.init_report_write.reset(report[1]);
        // Read once init is gone: never blocks, whoever else still holds the write end.
        if (::fcntl(report[0], F_SETFL, O_NONBLOCK) != 0) return fail_sys(errno, "fcntl", "husk-init report");
        const std::string arg = "--report-fd=" + std::to_string(report[1]);
        plan.init_report_arg = std::make_unique<char[]>(arg.size() + 1);
        std::memcpy(plan.init_report_arg.get(), arg.c_str(), arg.size() + 1);
        plan.init_argv = {const_cast<char*>("husk-init"), plan.init_report_arg.get(), const_cast<char*>("--")};
        plan.init_argv.insert(plan.init_argv.end(), plan.workload.argv.begin(), plan.workload.argv.end());  // with its NULL
    }
    return plan;
}

Result<Confinement> prepare_confinement(const spec::Spec& spec, bool seccomp_skip_unknown,
                                        const caps::CredentialsPlan& credentials, const std::string& seccomp_cache_root) {
    const spec::Process& process = *spec.process;
    Confinement out;
    if (spec.linux && spec.linux->seccomp) {
        seccomp::SeccompOptions seccomp_options;
        if (seccomp_skip_unknown) seccomp_options.unknown_syscalls = seccomp::UnknownSyscalls::skip_allowed;
        seccomp_options.cache_root = seccomp_cache_root;
        out.seccomp = TRY(seccomp::prepare_seccomp(*spec.linux->seccomp, seccomp_options));
    }
    if (process.landlock) out.landlock = TRY(landlock::prepare_landlock(*process.landlock, TRY(landlock::probe_abi())));
    out.apparmor = TRY(apparmor::prepare_apparmor(process.apparmor_profile));
    out.expected.seccomp = out.seccomp.has_value();
    out.expected.no_new_privs = process.no_new_privileges;
    out.expected.landlock = out.landlock.enforce;
    out.expected.cap_effective = credentials.sets.effective;
    out.expected.cap_bounding = credentials.sets.bounding;
    return out;
}

}  // namespace husk::process
