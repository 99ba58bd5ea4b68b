// update_cgroup: `husk update` on a live container's cgroup.
#include <charconv>

#include "cgroup/controllers.hpp"
#include "cgroup/device_filter.hpp"
#include "cgroup/hierarchy.hpp"
#include "cgroup/limits.hpp"
#include "cgroup/resources_check.hpp"

namespace husk::cgroup {
namespace {

// The first word of an interface file ("max" or a number); "max" when the file does not exist (its
// controller is not enabled, so nothing limits the cgroup).
Result<std::string> first_word(int dir_fd, const char* file, const std::string& where) {
    if (!file_exists(dir_fd, file)) return std::string("max");
    std::string text = TRY(read_cgroup_file(dir_fd, file, where));
    return text.substr(0, text.find_first_of(" \n"));
}

Result<std::int64_t> number_or_max(const std::string& word, const std::string& file) {
    if (word == "max") return -1;
    std::int64_t value = 0;
    auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), value);
    if (ec != std::errc() || end != word.data() + word.size()) return fail_msg("unexpected \"" + word + "\" in " + file);
    return value;
}

// memory.checkBeforeUpdate (config-linux.md): a new limit below the current usage is refused.
Result<void> check_memory_usage(int dir_fd, const spec::Resources& resources, const std::string& where) {
    if (!resources.memory || !resources.memory->check_before_update.value_or(false)) return {};
    std::int64_t limit = resources.memory->limit.value_or(0);
    if (limit <= 0 || !file_exists(dir_fd, "memory.current")) return {};
    std::string word = TRY(first_word(dir_fd, "memory.current", where));
    std::int64_t usage = TRY(number_or_max(word, where + "/memory.current"));
    if (limit < usage)
        return fail_msg("linux.resources.memory.limit: " + std::to_string(limit) + " is below the current usage " +
                        std::to_string(usage) + " of " + where + " (memory.checkBeforeUpdate is set)");
    return {};
}

}  // namespace

Result<void> update_cgroup(const CgroupLocation& cgroup, const spec::Resources& resources,
                           const spec::Spec& container_spec, const spec::HuskSettings& husk) {
    UniqueFd root = TRY(open_v2_root(cgroup.mount));
    UniqueFd leaf = TRY(open_cgroup_dir(cgroup));
    std::string where = cgroup.where();

    // Everything that can be checked is checked before the first write.
    std::vector<ResourceRequest> requests = TRY(list_resource_requests(resources));
    if (!requests.empty()) TRY(check_resource_requests(requests, TRY(read_controller_facts(cgroup.mount))));
    LimitOptions options;
    options.mode = LimitMode::update;
    options.oom_group = husk.oom_group.value_or(true);
    // The client that created the container updates it: its ociVersion says how a pids.limit of 0 reads.
    options.pids_reading = pids_limit_reading(container_spec.oci_version);
    options.where = where;
    if (resources.memory && resources.memory->swap.value_or(0) != 0 && resources.memory->limit.value_or(0) == 0) {
        // Not nested in the call: a TRY returning mid-call would skip destroying an argument built first.
        std::string current = TRY(first_word(leaf.get(), "memory.max", where));
        options.current_memory_limit = TRY(number_or_max(current, where + "/memory.max"));
    }
    if (resources.cpu && resources.cpu->period.value_or(0) != 0 && resources.cpu->quota.value_or(0) == 0)
        options.current_cpu_quota = TRY(first_word(leaf.get(), "cpu.max", where));
    std::vector<std::string> controllers = needed_controllers(TRY(plan_limits(resources, options)));
    std::vector<bpf_insn> program;
    if (!resources.devices.empty())
        program = TRY(compile_device_program(with_default_devices(resources.devices, container_spec)));
    TRY(check_memory_usage(leaf.get(), resources, where));

    // A controller the container did not need so far (hugetlb, cpuset) is handed down first, so that its
    // files exist in the leaf when the limits are planned against them.
    TRY(enable_controllers(root.get(), cgroup, controllers, {}));
    options.has_file = [&leaf](std::string_view file) { return file_exists(leaf.get(), file); };
    options.controllers = split_words(TRY(read_cgroup_file(leaf.get(), "cgroup.controllers", where)));
    TRY(apply_limits(leaf.get(), where, TRY(plan_limits(resources, options))));
    if (!resources.devices.empty()) TRY(replace_device_program(leaf.get(), program, where));
    return {};
}

}  // namespace husk::cgroup
