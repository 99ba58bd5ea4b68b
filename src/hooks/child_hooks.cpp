// createContainer and startContainer hooks: prepared in the parent, run by the container child.
#include <string>

#include "hooks/hook_process.hpp"
#include "hooks/hooks.hpp"

namespace husk::hooks {

Result<ChildHooksPlan> prepare_child_hooks(const std::vector<spec::Hook>& hooks, std::string_view kind) {
    ChildHooksPlan plan;
    plan.kind = kind;
    for (std::size_t i = 0; i < hooks.size(); ++i)
        plan.hooks.push_back(TRY(prepare_hook(hooks[i], "hooks." + plan.kind + "[" + std::to_string(i) + "]")));
    return plan;
}

Result<void> apply_child_hooks(const ChildHooksPlan& plan, const char* state_json, std::size_t length) noexcept {
    for (std::size_t i = 0; i < plan.hooks.size(); ++i) {
        HookStatus status = run_hook_process(*plan.hooks[i], std::string_view(state_json, length));
        if (!status.succeeded()) return fail(describe_failure(status, plan.kind, i, *plan.hooks[i]));
    }
    return {};
}

}  // namespace husk::hooks
