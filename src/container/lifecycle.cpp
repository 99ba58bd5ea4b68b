// start, state, kill, delete, pause, resume, ps: the verbs that act on an existing container through its state dir.
#include <fcntl.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <string_view>
#include <thread>

#include "base/dir.hpp"
#include "base/fs.hpp"
#include "base/proc_stat.hpp"
#include "base/sys.hpp"
#include "base/time.hpp"
#include "cgroup/cgroup.hpp"
#include "container/observe.hpp"
#include "container/config.hpp"
#include "container/tenant.hpp"
#include "hooks/hooks.hpp"
#include "husk/container.hpp"
#include "frontend/verdict_reader.hpp"
#include "state/process_identity.hpp"

namespace husk {
namespace {

using container::Observed;
using container::Status;

struct Opened {
    state::StateDir dir;
    std::optional<state::Record> record;
    Observed observed;
};

Result<Opened> open_container(const Runtime& runtime, const ContainerId& id, state::Lock lock) {
    auto dir = TRY(state::StateDir::open(runtime.root, id));
    TRY(dir.lock(lock));
    std::optional<state::Record> record;
    if (auto r = dir.read_record()) record = std::move(*r);
    else if (r.error().err != ENOENT) return std::unexpected(r.error());
    Observed observed = container::observe(dir, record);
    return Opened{std::move(dir), std::move(record), observed};
}

// delete's view of the effective config (the hooks to run, the tenant to charge): a container must stay deletable
// when it cannot be read, so that is a warning, and nothing when a create died before it wrote it.
std::shared_ptr<const container::ParsedConfig> config_for_delete(const Opened& c, std::vector<std::string>& warnings) {
    auto config = container::read_parsed_config(c.dir);
    if (config) return std::move(*config);
    if (config.error().err != ENOENT)
        warnings.push_back("poststop hooks not run and no tenant charged: " + config.error().message());
    return nullptr;
}

// Waits until init is gone, up to timeout.
bool wait_gone(const state::Record& record, std::chrono::milliseconds timeout) {
    auto pidfd = state::open_live_pidfd(record.pid, record.pid_start_time, record.boot_id);
    if (!pidfd) return true;
    pollfd p{pidfd->get(), POLLIN, 0};
    return ::poll(&p, 1, static_cast<int>(timeout.count())) == 1;
}

Result<void> signal_init(const state::Record& record, int signal) {
    auto pidfd = state::open_live_pidfd(record.pid, record.pid_start_time, record.boot_id);
    if (!pidfd) return fail_msg("container not running");
    if (sys::pidfd_send_signal(pidfd->get(), signal) != 0) return fail_sys(errno, "kill", std::to_string(record.pid));
    return {};
}

// The facts behind the reason `killed` (docs/ARCHITECTURE.md, "State"): the signal is recorded, under the exclusive
// lock the caller holds, before it is sent, so the monitor's verdict at init's exit always sees it. Best effort: a
// signal is never held back because the state filesystem is full. When the request cannot be written, the
// kills-recorded file is unlinked instead (that needs no space), and the monitor then does not claim that nobody
// asked for the signal (docs/ARCHITECTURE.md, State).
void record_kill_request(Opened& c, int signal) {
    auto& requests = c.record->kill_requests;
    if (std::find(requests.begin(), requests.end(), signal) != requests.end()) return;
    requests.insert(std::upper_bound(requests.begin(), requests.end(), signal), signal);
    if (!c.dir.write_record(*c.record)) ::unlinkat(c.dir.fd(), state::StateDir::kills_recorded, 0);
}

// The same for `delete --force`'s SIGKILL, which the verdict attributes to delete, not to `husk kill`.
void record_force_delete(Opened& c) {
    if (c.record->force_deleted) return;
    c.record->force_deleted = true;
    if (!c.dir.write_record(*c.record)) ::unlinkat(c.dir.fd(), state::StateDir::kills_recorded, 0);
}

// SIGKILL to a process named by pid + start time, then waits until it is gone; false if it outlives the wait.
bool kill_and_wait(pid_t pid, std::uint64_t start_time, const std::string& boot_id) {
    auto pidfd = state::open_live_pidfd(pid, start_time, boot_id);
    if (!pidfd) return true;
    sys::pidfd_send_signal(pidfd->get(), SIGKILL);
    pollfd p{pidfd->get(), POLLIN, 0};
    return ::poll(&p, 1, 10000) == 1;
}

// A create that died before it committed left at most: its monitor (waiting for create, or spawning init),
// init (named in the record before it leaves its first wait), the cgroup (named before it was made). The
// monitor goes first, so it starts nothing new; then the record is read again for the init it may have added.
// The cgroup is emptied and removed by delete's common path.
Result<void> kill_abandoned_create(Opened& c) {
    const state::Record& first = *c.record;
    if (!kill_and_wait(first.monitor_pid, first.monitor_start_time, first.boot_id))
        return fail_msg("the monitor of an unfinished create did not die after SIGKILL");
    if (auto again = c.dir.read_record()) c.record = std::move(*again);
    const state::Record& r = *c.record;
    if (auto cgroup = container::cgroup_of(r)) (void)cgroup::kill_all(*cgroup, SIGKILL);
    if (!kill_and_wait(r.pid, r.pid_start_time, r.boot_id))
        return fail_msg("init of an unfinished create did not die after SIGKILL");
    return {};
}

// While a delete waits, unlocked, for the monitor's verdict, an empty file in the state dir names it:
// `delete-pending.<pid>.<start time>`. Another delete meanwhile (`husk run`'s own, right after its monitor
// recorded the exit) finds it and leaves the removal to the waiting one, so the record stays readable until the
// delete that waits for it has read it. Empty: creating it needs an inode and no block, so a full state filesystem
// still works as delete must; a dead owner's file is ignored (and removed with the directory).
constexpr std::string_view delete_pending = "delete-pending.";

Result<std::string> own_pending_name() {
    return std::string(delete_pending) + std::to_string(::getpid()) + "." +
           std::to_string(TRY(own_start_time()));
}

// Whether a live delete other than this one waits on this container.
bool other_delete_pending(const Opened& c) {
    auto entries = list_dir_at(c.dir.fd(), c.dir.path());
    if (!entries) return false;
    auto own = own_pending_name();
    for (const DirEntry& entry : *entries) {
        if (!entry.name.starts_with(delete_pending) || (own && entry.name == *own)) continue;
        unsigned long long pid = 0, start_time = 0;
        if (std::sscanf(entry.name.c_str() + delete_pending.size(), "%llu.%llu", &pid, &start_time) != 2) continue;
        if (state::open_live_pidfd(static_cast<pid_t>(pid), start_time, c.record->boot_id)) return true;
    }
    return false;
}

// Init is gone; a monitor still alive is about to record its exit, under the lock delete holds. Let go of it until
// the exit is there (or the monitor is gone, or 5 s passed), so the verdict is the monitor's (`killed`, with the
// kill request recorded above) and not lost with the state dir, and `husk state` answers meanwhile. The lock is
// taken again and the record read anew. False when the container went away meanwhile all the same (its
// delete-pending file could not be made); c.record then holds the last record seen.
Result<bool> await_recorded_exit(Opened& c) {
    if (c.record->exit || c.record->creator_pid != 0) return true;
    auto monitor = state::open_live_pidfd(c.record->monitor_pid, c.record->monitor_start_time, c.record->boot_id);
    if (!monitor) return true;
    std::optional<std::string> pending;
    if (auto name = own_pending_name()) {
        if (open_fd_at(c.dir.fd(), *name, O_RDONLY | O_CREAT | O_CLOEXEC, 0600)) pending = *name;
    }
    c.dir.unlock();
    pollfd exited{monitor->get(), POLLIN, 0};
    for (auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
         std::chrono::steady_clock::now() < deadline;) {
        // Unlocked reads are whole: the record is replaced by rename.
        if (auto r = c.dir.read_record(); r && r->exit) {
            c.record = std::move(*r);
            break;
        }
        if (::poll(&exited, 1, 10) == 1) break;
    }
    TRY(c.dir.lock(state::Lock::exclusive));
    if (pending) ::unlinkat(c.dir.fd(), pending->c_str(), 0);
    auto again = c.dir.read_record();
    if (!again && again.error().err == ENOENT) return false;
    if (!again) return std::unexpected(again.error());
    c.record = std::move(*again);
    return true;
}

// Blocks until init has executed the workload or is gone, and says which. Init is the fifo's last reader: it
// holds exec.fifo O_RDWR and close-on-exec (create and the monitor have closed theirs by then), so our write
// end reports POLLERR (no readers left, pipe(7)) exactly when execve succeeded or init ended. No timeout: both
// happen on their own. A byte still in the fifo means nothing was executed: ours, unread because init died
// before reading it, or the one init writes back when a startContainer hook or execve failed.
Result<bool> wait_for_exec(int fifo) {
    pollfd gone{fifo, 0, 0};
    while (!(gone.revents & POLLERR)) {
        if (::poll(&gone, 1, -1) < 0 && errno != EINTR) return fail_sys(errno, "poll", "exec.fifo");
    }
    int unread = 0;
    if (::ioctl(fifo, FIONREAD, &unread) != 0) return fail_sys(errno, "ioctl FIONREAD", "exec.fifo");
    return unread == 0;
}

}  // namespace

Result<std::vector<std::string>> start_container(const Runtime& runtime, const ContainerId& id) {
    auto c = TRY(open_container(runtime, id, state::Lock::exclusive));
    switch (c.observed.status) {
        case Status::created: break;
        case Status::stopped: return fail_msg("cannot start a container that has stopped");
        case Status::creating: return fail_msg("cannot start a container that is still being created");
        default: return fail_msg("cannot start an already running container");
    }
    // Init holds the fifo open for reading; O_NONBLOCK turns "nobody is reading" into ENXIO, never a hang.
    auto fifo = open_fd_at(c.dir.fd(), state::StateDir::exec_fifo, O_WRONLY | O_NONBLOCK);
    if (!fifo) return fail_msg("cannot start container: init is not waiting (" + fifo.error().message() + ")");
    if (::write(fifo->get(), "0", 1) != 1) return fail_sys(errno, "write", "exec.fifo");
    ::unlinkat(c.dir.fd(), state::StateDir::exec_fifo, 0);
    c.record->started = now_rfc3339_nano();
    TRY(c.dir.write_record(*c.record));
    // runtime.md: the poststart hooks run after the user-specified program is executed and before start returns;
    // a failing startContainer hook continues the lifecycle at destroy, without them. Start itself succeeds
    // either way, as runc's does: the failure is the container's exit (setup-failed), recorded by the monitor.
    // The wait lasts as long as the startContainer hooks do, so it must not hold up kill or delete --force:
    // the lock goes first, and the hooks are read while the state dir surely still exists.
    const spec::Hooks hooks = TRY(container::read_parsed_config(c.dir))->spec.hooks;
    c.dir.unlock();
    if (!TRY(wait_for_exec(fifo->get())))
        return std::vector<std::string>{"the container's program was not executed (a startContainer hook or execve "
                                        "failed, see husk state): poststart hooks skipped"};
    // A failure of a poststart hook is a warning. The state they read is made only when there is one.
    if (hooks.poststart.empty()) return std::vector<std::string>{};
    std::string state = container::oci_state_json(*c.record, "running", c.record->pid);
    auto outcome = hooks::run_hooks(hooks.poststart, state, "poststart", hooks::OnFailure::warn);
    if (!outcome) return std::unexpected(outcome.error());
    return std::move(outcome->warnings);
}

Result<std::string> container_state_json(const Runtime& runtime, const ContainerId& id) {
    auto dir = TRY(state::StateDir::open_unlocked(runtime.root, id));
    std::optional<state::Record> record;
    if (auto r = dir.read_record()) record = std::move(*r);
    Observed observed = container::observe(dir, record);
    // Init is gone but its verdict is not written yet: wait for it (briefly), so `stopped` comes with husk.exit
    // instead of without it.
    if (observed.status == Status::stopped && record && !record->exit && !record->started.empty()) {
        frontend::await_verdict(*record);
        if (auto again = dir.read_record()) {
            record = std::move(*again);
            observed = container::observe(dir, record);
        }
    }
    if (!record) {
        state::Record empty;
        empty.id = id.str();
        return container::oci_state_json(empty, container::status_name(observed.status), 0);
    }
    return container::oci_state_json(*record, container::status_name(observed.status), observed.pid);
}

Result<void> kill_container(const Runtime& runtime, const ContainerId& id, int signal, bool all) {
    auto c = TRY(open_container(runtime, id, state::Lock::exclusive));
    if (c.observed.status == Status::creating || !c.record) return fail_msg("container not running");
    // Without a cgroup there is no complete list of the container's processes; signalling init alone would
    // quietly do less than asked.
    std::optional<cgroup::CgroupLocation> cgroup = container::cgroup_of(*c.record);
    if (all && !cgroup)
        return fail_msg("kill --all needs the container's cgroup, and this container has none "
                        "(created with --cgroup-manager disabled)");
    if (c.observed.status == Status::stopped) {
        if (!all) return fail_msg("container not running");
        // runc's kill --all: what init left in the cgroup (it shared a pid namespace, so its processes outlive
        // it) is signalled, and a cgroup that is already gone is nothing to do. containerd and dockerd send
        // it after every exit of such a container. The verdict is recorded already: no kill request to note.
        auto killed = cgroup::kill_all(*cgroup, signal);
        if (!killed && killed.error().err == ENOENT) return {};
        return killed;
    }
    record_kill_request(c, signal);
    if (all) return cgroup::kill_all(*cgroup, signal);
    return signal_init(*c.record, signal);
}

Result<std::vector<std::string>> delete_container(const Runtime& runtime, const ContainerId& id, bool force,
                                                  std::string* final_state) {
    // A create killed before its state dir was renamed into place left only its temporary directory.
    state::remove_abandoned_creations(runtime.root, id);
    auto opened = open_container(runtime, id, state::Lock::exclusive);
    if (!opened) {
        // Clients delete twice (containerd's shim always follows delete with delete --force): not an error.
        if (force && opened.error().kind == ErrorKind::not_found) return std::vector<std::string>{};
        return std::unexpected(opened.error());
    }
    Opened& c = *opened;
    // We hold the lock, which create keeps until it commits: a record still naming its creator is abandoned
    // (the liveness check is only a second guard).
    if (c.record && c.record->creator_pid != 0 && !container::creator_alive(*c.record)) TRY(kill_abandoned_create(c));
    if (c.observed.status != Status::stopped) {
        if (!force)
            return fail_msg("cannot delete container " + id.str() + " that is not stopped: " +
                            container::status_name(c.observed.status));
        if (c.record) {
            record_force_delete(c);
            if (auto cgroup = container::cgroup_of(*c.record)) (void)cgroup::kill_all(*cgroup, SIGKILL);
            (void)signal_init(*c.record, SIGKILL);
            if (!wait_gone(*c.record, std::chrono::seconds(10))) return fail_msg("container init did not die after SIGKILL");
        }
    }
    if (c.record && !TRY(await_recorded_exit(c))) {
        if (final_state) *final_state = container::oci_state_json(*c.record, "stopped", 0);
        return std::vector<std::string>{};
    }
    if (c.record && final_state) *final_state = container::oci_state_json(*c.record, "stopped", 0);
    // A delete waiting for this container's verdict removes it once it has read it (above).
    if (c.record && other_delete_pending(c)) return std::vector<std::string>{};
    std::vector<std::string> warnings;
    if (c.record) {
        // runtime.md: poststop hooks run after the container is deleted... their failures are warnings.
        std::shared_ptr<const container::ParsedConfig> config = config_for_delete(c, warnings);
        if (config && !config->spec.hooks.poststop.empty()) {
            std::string state = container::oci_state_json(*c.record, "stopped", 0);
            auto outcome = hooks::run_hooks(config->spec.hooks.poststop, state, "poststop", hooks::OnFailure::warn);
            if (outcome) warnings.insert(warnings.end(), outcome->warnings.begin(), outcome->warnings.end());
        }
        // A tenant run whose monitor was lost is charged from its cgroup before the cgroup goes.
        if (config && config->husk.tenant) container::charge_deleted(runtime.root, *config->husk.tenant, *c.record);
        if (auto cgroup = container::cgroup_of(*c.record)) {
            // Without a pid namespace, processes may outlive init; runc kills them too before removing.
            (void)cgroup::kill_all(*cgroup, SIGKILL);
            TRY(cgroup::remove_cgroup(*cgroup));
        }
    }
    TRY(c.dir.remove());
    return warnings;
}

// runc's wording for a container in the wrong state for pause/resume.
static Result<cgroup::CgroupLocation> require_cgroup(const Opened& c, Status expected, const char* verb) {
    if (c.observed.status != expected)
        return fail_msg(std::string("container not ") + (expected == Status::running ? "running" : "paused") +
                        " (" + container::status_name(c.observed.status) + "): cannot " + verb);
    std::optional<cgroup::CgroupLocation> cgroup = container::cgroup_of(*c.record);
    if (!cgroup)
        return fail_msg(std::string("cannot ") + verb + ": the container has no cgroup (--cgroup-manager disabled)");
    return *cgroup;
}

Result<void> pause_container(const Runtime& runtime, const ContainerId& id) {
    auto c = TRY(open_container(runtime, id, state::Lock::exclusive));
    return cgroup::set_frozen(TRY(require_cgroup(c, Status::running, "pause")), true);
}

Result<void> resume_container(const Runtime& runtime, const ContainerId& id) {
    auto c = TRY(open_container(runtime, id, state::Lock::exclusive));
    return cgroup::set_frozen(TRY(require_cgroup(c, Status::paused, "resume")), false);
}

Result<std::vector<pid_t>> container_pids(const Runtime& runtime, const ContainerId& id) {
    auto c = TRY(open_container(runtime, id, state::Lock::shared));
    if (!c.record || c.observed.status == Status::stopped) return fail_msg("container not running");
    std::optional<cgroup::CgroupLocation> cgroup = container::cgroup_of(*c.record);
    if (!cgroup)
        return fail_msg("ps needs the container's cgroup, and this container has none (--cgroup-manager disabled)");
    return cgroup::read_all_procs(*cgroup);
}

}  // namespace husk
