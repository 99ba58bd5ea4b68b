#include "hooks/hooks.hpp"

#include <string>

#include "hooks/hook_process.hpp"

namespace husk::hooks {
namespace {

bool holds_nul(const std::string& text) { return text.find('\0') != std::string::npos; }

// The pointer arrays execve wants, pointing into strings that no longer move.
std::vector<char*> pointers_into(std::vector<std::string>& strings) {
    std::vector<char*> pointers;
    pointers.reserve(strings.size() + 1);
    for (std::string& s : strings) pointers.push_back(s.data());
    pointers.push_back(nullptr);
    return pointers;
}

}  // namespace

Result<std::unique_ptr<PreparedHook>> prepare_hook(const spec::Hook& hook, const std::string& where) {
    // config.md: path "MUST be absolute"; timeout "MUST be greater than zero".
    if (hook.path.empty() || hook.path[0] != '/')
        return fail_msg(where + ".path: \"" + hook.path + "\" is not an absolute path");
    if (hook.timeout && *hook.timeout <= 0)
        return fail_msg(where + ".timeout: " + std::to_string(*hook.timeout) + " is not greater than zero");
    if (holds_nul(hook.path)) return fail_msg(where + ".path: holds a NUL character");
    for (std::size_t i = 0; i < hook.args.size(); ++i)
        if (holds_nul(hook.args[i])) return fail_msg(where + ".args[" + std::to_string(i) + "]: holds a NUL character");
    for (std::size_t i = 0; i < hook.env.size(); ++i)
        if (holds_nul(hook.env[i])) return fail_msg(where + ".env[" + std::to_string(i) + "]: holds a NUL character");

    auto prepared = std::make_unique<PreparedHook>();
    prepared->path = hook.path;
    prepared->args = hook.args.empty() ? std::vector<std::string>{hook.path} : hook.args;
    prepared->env = hook.env;
    prepared->argv = pointers_into(prepared->args);
    prepared->envp = pointers_into(prepared->env);
    prepared->timeout_seconds = hook.timeout.value_or(0);
    return prepared;
}

Result<HookOutcome> run_hooks(const std::vector<spec::Hook>& hooks, std::string_view state_json, std::string_view kind,
                              OnFailure on_failure) {
    HookOutcome outcome;
    for (std::size_t i = 0; i < hooks.size(); ++i) {
        auto prepared = prepare_hook(hooks[i], "hooks." + std::string(kind) + "[" + std::to_string(i) + "]");
        Error error;
        if (!prepared) {
            error = prepared.error();
        } else {
            HookStatus status = run_hook_process(**prepared, state_json);
            if (status.succeeded()) continue;
            error = describe_failure(status, kind, i, **prepared);
        }
        // "the remaining hooks and lifecycle continue as if the hook had succeeded" (runtime.md).
        if (on_failure == OnFailure::fail) return fail(error);
        outcome.warnings.push_back(error.message());
    }
    return outcome;
}

}  // namespace husk::hooks
