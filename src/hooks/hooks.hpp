// runtime-spec hooks (config.md "POSIX-platform Hooks", runtime.md "Lifecycle"): programs run at points of
// the container's life with the state JSON on stdin. prestart, createRuntime, poststart and poststop run
// in the runtime namespace, from husk (run_hooks). createContainer (before pivot_root) and startContainer
// (just before the user program) run in the container, from the container child (apply_child_hooks).
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "husk/error.hpp"
#include "husk/spec.hpp"

namespace husk::hooks {

// runtime.md: a failing poststart or poststop hook is a warning, any other hook's failure an error.
// runc also aborts on poststart; the caller decides.
enum class OnFailure { fail, warn };

struct HookOutcome {
    std::vector<std::string> warnings;  // one message per failed hook, under OnFailure::warn
};

// A hook ready to execve: path, argv (args, or {path} when args is empty; args[0] is argv[0] as for
// execv) and envp (exactly the hook's env, nothing inherited), as null-terminated pointer arrays.
struct PreparedHook {
    std::string path;
    std::vector<std::string> args;
    std::vector<std::string> env;
    std::vector<char*> argv;  // points into args
    std::vector<char*> envp;  // points into env
    int timeout_seconds = 0;  // 0: wait as long as it takes
};

// Runs the hooks in order (kind is the config.json name, "createRuntime", used in messages). Each hook is
// a child of husk with the state on stdin through a pipe (a hook need not read it) and stdout and stderr
// captured together: the first 200 bytes go into the message when the hook fails. A timeout kills the
// hook with SIGKILL: `createRuntime hook 0 ("/x/y"): timed out after 5s`; other failures read
// `... exited with status 3; output: "..."`, `... killed by signal SIGSEGV`, `... execve: <errno>`.
Result<HookOutcome> run_hooks(const std::vector<spec::Hook>& hooks, std::string_view state_json, std::string_view kind,
                              OnFailure on_failure);

// The container-side hooks, prepared in the parent. Each hook lives in its own allocation, so the
// pointers in argv/envp stay valid however the plan is moved.
struct ChildHooksPlan {
    std::string kind;  // "createContainer"
    std::vector<std::unique_ptr<PreparedHook>> hooks;
};

// kind names the hooks in messages ("createContainer", "startContainer"). Refuses a relative path, a
// timeout that is not positive, and strings holding NUL.
Result<ChildHooksPlan> prepare_child_hooks(const std::vector<spec::Hook>& hooks, std::string_view kind);

// Same semantics as run_hooks, without allocation; the first failure is returned, carrying kind, index
// and path.
Result<void> apply_child_hooks(const ChildHooksPlan& plan, const char* state_json, std::size_t length) noexcept;

}  // namespace husk::hooks
