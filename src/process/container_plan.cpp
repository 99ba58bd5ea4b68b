#include "process/container_plan.hpp"

namespace husk::process {

Result<ContainerPlan> prepare_container(const spec::Spec& spec, const PlanOptions& options) {
    static const spec::Linux no_linux;
    const spec::Linux& linux = spec.linux ? *spec.linux : no_linux;
    ContainerPlan plan{
        .namespaces = TRY(ns::prepare_namespaces(linux)),
        .rootfs = TRY(mnt::prepare_rootfs(spec, options.rootfs,
                                          mnt::RootfsOptions{.no_pivot = options.no_pivot,
                                                             .terminal = spec.process->terminal,
                                                             .bundle = options.bundle})),
        .credentials = TRY(caps::prepare_credentials(*spec.process)),
        .rlimits = TRY(rlimit::prepare_rlimits(*spec.process)),
        .loopback = TRY(net::prepare_loopback()),
        .sysctl = TRY(sysctl::prepare_sysctl(linux.sysctl)),
        .create_container_hooks = TRY(hooks::prepare_child_hooks(spec.hooks.create_container, "createContainer")),
        .start_container_hooks = TRY(hooks::prepare_child_hooks(spec.hooks.start_container, "startContainer")),
        .exec = TRY(prepare_exec(spec, options.preserve_fds)),
    };
    return plan;
}

}  // namespace husk::process
