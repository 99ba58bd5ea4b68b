// One hook as a process: spawn, feed the state, capture output, enforce the timeout, reap. Shared by the
// runtime side and the container side, so it allocates nothing.
#pragma once

#include <cstddef>
#include <string_view>

#include "hooks/hooks.hpp"

namespace husk::hooks {

struct HookStatus {
    enum class Kind { exited, signaled, timed_out, exec_failed, setup_failed };
    Kind kind = Kind::setup_failed;
    int code = 0;                // exit status, signal number, or errno (exec_failed, setup_failed)
    const char* operation = "";  // setup_failed: the system call that failed
    char output[200] = {};       // the first bytes of stdout+stderr
    std::size_t output_length = 0;

    bool succeeded() const noexcept { return kind == Kind::exited && code == 0; }
};

HookStatus run_hook_process(const PreparedHook& hook, std::string_view state_json) noexcept;

// `createRuntime hook 0 ("/x/y"): exited with status 3; output: "..."`, as an Error (errno set for exec
// and setup failures).
Error describe_failure(const HookStatus& status, std::string_view kind, std::size_t index,
                       const PreparedHook& hook) noexcept;

// Validates and converts one config.json hook; `where` is its JSON path ("hooks.poststop[1]").
Result<std::unique_ptr<PreparedHook>> prepare_hook(const spec::Hook& hook, const std::string& where);

}  // namespace husk::hooks
