#include "shim/task_options.hpp"

#include "ttrpc/protobuf.hpp"

namespace husk::shim {
namespace {

// Field numbers of runc's option messages (containerd 1.6: runtime/linux/runctypes/runc.proto and
// runtime/v2/runc/options/oci.proto).
struct RuncFields {
    std::uint32_t no_pivot_root, systemd_cgroup;  // 0: the message has no such field
};

Result<TaskOptions> parse_runc_options(const ttrpc::Any& any, RuncFields fields) {
    TaskOptions options;
    ttrpc::ProtoReader reader(any.value);
    for (;;) {
        auto field = reader.next();
        if (!field) return fail(field.error().context(any.type_url + ": "));
        if (!*field) return options;
        if ((*field)->number == fields.no_pivot_root) options.no_pivot = TRY(ttrpc::bool_of(**field));
        if (fields.systemd_cgroup != 0 && (*field)->number == fields.systemd_cgroup && TRY(ttrpc::bool_of(**field)))
            return fail_msg(any.type_url + ": SystemdCgroup is not supported by husk (it drives cgroupfs only)");
    }
}

}  // namespace

Result<TaskOptions> parse_task_options(const std::optional<ttrpc::Any>& options) {
    if (!options) return TaskOptions{};
    if (options->type_url == "containerd.linux.runc.CreateOptions") return parse_runc_options(*options, {1, 0});
    if (options->type_url == "containerd.runc.v1.Options") return parse_runc_options(*options, {1, 9});
    if (options->type_url == "runtimeoptions.v1.Options") return TaskOptions{};
    return fail_msg("task options of type \"" + options->type_url + "\" are not understood by husk's shim");
}

}  // namespace husk::shim
