// The verdict `husk run --verdict FILE` / `--verdict-fd N` delivers: one JSON object per invocation, made of the
// record's own pieces (husk.exit's members, usage, factors, security) plus the limits in force and the wall
// time (docs/husk.8.md, VERDICT). Written whole: a file by rename, an fd in one write.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

#include "husk/error.hpp"
#include "monitor/policy.hpp"
#include "state/record.hpp"

namespace husk::frontend {

struct RunVerdict {
    std::string id;
    // code -1, signal 0 when nothing ran (refused, setup-failed before start).
    state::ExitRecord exit;
    int status = 1;  // what husk exits with
    std::string started;
    std::optional<std::chrono::milliseconds> wall_time;  // from start to init's reap
    std::optional<state::Security> security;
    std::optional<monitor::StopPolicy> policy;  // the limits in force; nothing when the config was not read
    spec::HuskSettings settings;       // the effective config's husk settings (the policies beside the limits)
};

std::string encode_verdict(const RunVerdict& verdict);

// Atomically: a temporary file in the same directory, fsynced, renamed over `path`.
Result<void> deliver_verdict_file(const std::string& path, std::string_view json);
// One write(2) of the whole object and a newline (a pipe takes it in one piece up to its capacity).
Result<void> deliver_verdict_fd(int fd, std::string_view json);

}  // namespace husk::frontend
