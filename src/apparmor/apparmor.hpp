// process.apparmorProfile (runtime-spec config.md "Process"): the AppArmor profile the workload runs under. As runc
// does, the process writes "exec PROFILE" to its own /proc/thread-self/attr/apparmor/exec (apparmor(7); kernels before
// 5.8 only have /proc/self/attr/exec), and the kernel puts it under that profile at its next execve. Loading the
// profile is the client's business (Docker loads docker-default with apparmor_parser before it creates a container).
#pragma once

#include <string>

#include "husk/error.hpp"

namespace husk::apparmor {

struct AppArmorPlan {
    std::string profile;  // empty: nothing to do
    std::string command;  // "exec PROFILE", what the attribute gets
};

// Where the kernel says whether AppArmor is on (Y) or off (N); absent without AppArmor in the kernel.
inline constexpr const char* enabled_parameter = "/sys/module/apparmor/parameters/enabled";

// Refused, naming process.apparmorProfile: a name with a control character (the attribute is parsed as one
// line), and any profile but "unconfined" where AppArmor is not enabled (per `enabled_file`): husk does not
// run a process less confined than asked. "unconfined" there asks for nothing, and gets nothing.
Result<AppArmorPlan> prepare_apparmor(const std::string& profile, const char* enabled_file = enabled_parameter);

// Child side, before the container's root replaces the host's /proc (the container may mount none): writes
// plan.command to the calling thread's exec attribute, on procfs only (fstatfs), then reads it back and checks
// that the kernel now holds that profile for the next execve. System calls only. Nothing to do for an empty plan.
Result<void> apply_apparmor(const AppArmorPlan& plan) noexcept;

}  // namespace husk::apparmor
