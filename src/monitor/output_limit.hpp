// The output cap as one of husk's limits (run.husk.output-limit): its plumbing, its cause and its watcher. The
// same watcher pumps the output uncapped when the caller frames it (husk run --output-format json:
// frontend/json_lines.hpp).
// The pump itself is monitor/output_pump.hpp.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "husk/error.hpp"
#include "husk/unique_fd.hpp"
#include "monitor/output_pump.hpp"
#include "monitor/policy.hpp"
#include "monitor/watcher.hpp"
#include "state/record.hpp"

namespace husk::monitor {

struct LimitSetup;

// Frames both streams into husk's stdout (`output`), times counted from `origin`: the front end's, given to
// open_output_plumbing by whoever wants the output framed.
using Framing = std::function<std::unique_ptr<FramedOutput>(UniqueFd output,
                                                            std::chrono::steady_clock::time_point origin)>;

// The pump's ends, opened before init is cloned: init gets the pipes' write ends as stdout/stderr, the monitor
// keeps the read ends and the stdio husk was given (framed: stdout alone, where both streams go).
struct OutputPlumbing {
    PumpPipes pipes;
    UniqueFd stdout_out, stderr_out;
    Framing framing;  // empty: each stream to its own output as it is
    // Framed: t = 0 of the records, set by `husk run` when it starts the container.
    std::chrono::steady_clock::time_point origin = std::chrono::steady_clock::now();
};

// Nothing when the policy has no output cap and the output is not framed.
Result<std::optional<OutputPlumbing>> open_output_plumbing(const StopPolicy& policy, Framing framing);

// The container wrote past the output cap: output cut at the cap, the container is being killed.
state::StopCause output_limit_cause(const StopPolicy& policy);

std::unique_ptr<Watcher> watch_output_limit(LimitSetup& setup);
std::string output_limit_detail(const StopPolicy& policy, const ExitStatus& status, const state::StopCause* recorded);

}  // namespace husk::monitor
