// husk gc: the stopped containers nobody owns any more (husk(8), gc). Each is looked at under its own lock by
// `delete` (not forced), which refuses anything that is not stopped, so a container that gc saw stopped is never
// one that runs.
#include "container/observe.hpp"
#include "husk/container.hpp"
#include "frontend/verdict_reader.hpp"
#include "state/process_identity.hpp"
#include "state/state_dir.hpp"

namespace husk {
namespace {

bool orphaned(const state::StateDir& dir) {
    auto record = dir.read_record();
    if (!record || record->caller_pid == 0) return false;  // a create in progress, or an owner never recorded
    if (container::observe(dir, *record).status != container::Status::stopped) return false;
      // about to record the verdict, or to delete
    // A foreground husk run without --keep was to delete it itself: lost (SIGKILLed) before it did, it leaves
    // the container to nobody, whether its caller lives or not.
    if (record->monitor_deletes) return true;
    return !state::open_live_pidfd(record->caller_pid, record->caller_start_time, record->boot_id);
}

}  // namespace

GcOutcome gc_containers(const Runtime& runtime) {
    GcOutcome outcome;
    for (const auto& id : state::list_ids(runtime.root)) {
        auto dir = state::StateDir::open(runtime.root, id);
        if (!dir || !orphaned(*dir)) continue;
        if (auto deleted = delete_container(runtime, id, false); deleted)
            outcome.deleted.push_back(id);
        else
            outcome.errors.push_back(deleted.error().context("gc " + id.str() + ": "));
    }
    return outcome;
}

}  // namespace husk
