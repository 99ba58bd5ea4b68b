// Identifying a process across time: pid + start time + boot id, so a reused pid is never taken for init.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>

#include "base/proc_stat.hpp"
#include "husk/error.hpp"
#include "husk/unique_fd.hpp"

namespace husk::state {

Result<std::string> read_boot_id();

// A pidfd for pid if and only if it is still the process that started at start_time in this boot and has not
// exited (zombies count as exited). The check happens after pidfd_open, so the pidfd cannot name a newer process.
std::optional<UniqueFd> open_live_pidfd(pid_t pid, std::uint64_t start_time, const std::string& boot_id);

}  // namespace husk::state
