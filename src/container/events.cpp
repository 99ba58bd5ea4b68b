// events: the container's cgroup counters as runc's JSON events, once (--stats) or as a stream that also
// reports OOM kills and ends when the container stops.
#include <poll.h>
#include <sys/inotify.h>
#include <unistd.h>

#include <cerrno>

#include "cgroup/hierarchy.hpp"
#include "cgroup/stats.hpp"
#include "container/observe.hpp"
#include "husk/container.hpp"
#include "state/process_identity.hpp"

namespace husk {
namespace {

using container::Status;

// The record of a container whose init is alive. The state lock is held only while reading: a watcher that
// runs for hours must not block delete.
Result<state::Record> live_record(const Runtime& runtime, const std::string& id) {
    auto dir = TRY(state::StateDir::open(runtime.root, id));
    TRY(dir.lock(state::Lock::shared));
    std::optional<state::Record> record;
    if (auto r = dir.read_record()) record = std::move(*r);
    else if (r.error().err != ENOENT) return std::unexpected(r.error());
    Status status = container::observe(dir, record).status;
    // runc refuses a stopped container with the same words.
    if (!record || status == Status::stopped || status == Status::creating)
        return fail_msg("container with id " + id + " is not running");
    if (record->cgroup_path.empty())
        return fail_msg("events needs the container's cgroup, and this container has none (--cgroup-manager disabled)");
    return std::move(*record);
}

// Reads oom_kill and emits one oom event when it rose since the last look. A cgroup that is gone (the
// container was deleted) simply has nothing more to report.
class OomWatch {
public:
    OomWatch(int dir_fd, std::string where) : dir_fd_(dir_fd), where_(std::move(where)) {
        if (auto count = cgroup::read_oom_count(dir_fd_, where_); count && *count) last_ = **count;
    }
    void check(const std::string& id, const std::function<void(const std::string&)>& emit) {
        auto count = cgroup::read_oom_count(dir_fd_, where_);
        if (!count || !*count || **count <= last_) return;
        last_ = **count;
        emit(cgroup::oom_event_json(id));
    }

private:
    int dir_fd_;
    std::string where_;
    std::uint64_t last_ = 0;
};

}  // namespace

Result<std::string> container_stats_event(const Runtime& runtime, const std::string& id) {
    state::Record record = TRY(live_record(runtime, id));
    std::string where = record.cgroup_mount + record.cgroup_path;
    UniqueFd dir = TRY(cgroup::open_cgroup_dir(record.cgroup_mount, record.cgroup_path));
    cgroup::Stats stats = TRY(cgroup::read_stats(dir.get(), where));
    return cgroup::stats_event_json(id, stats);
}

Result<void> watch_container_events(const Runtime& runtime, const std::string& id, std::chrono::milliseconds interval,
                                    const std::function<void(const std::string& line)>& emit) {
    using Clock = std::chrono::steady_clock;
    if (interval <= std::chrono::milliseconds(0)) return fail_msg("the interval must be greater than 0");
    state::Record record = TRY(live_record(runtime, id));
    std::optional<UniqueFd> init = state::open_live_pidfd(record.pid, record.pid_start_time, record.boot_id);
    if (!init) return {};  // it stopped since we looked: nothing left to watch
    std::string where = record.cgroup_mount + record.cgroup_path;
    UniqueFd dir = TRY(cgroup::open_cgroup_dir(record.cgroup_mount, record.cgroup_path));

    // cgroup-v2.rst: a value change in memory.events generates a file modified event. Without the memory
    // controller the file does not exist and there can be no OOM kill to report.
    int raw_inotify = ::inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
    if (raw_inotify < 0) return fail_sys(errno, "inotify_init1");
    UniqueFd inotify(raw_inotify);
    std::string events_file = where + "/memory.events";
    if (::inotify_add_watch(inotify.get(), events_file.c_str(), IN_MODIFY) < 0 && errno != ENOENT)
        return fail_sys(errno, "inotify_add_watch", events_file);
    OomWatch oom(dir.get(), where);

    Clock::time_point next = Clock::now() + interval;
    for (;;) {
        auto wait = std::chrono::ceil<std::chrono::milliseconds>(next - Clock::now());
        pollfd fds[2] = {{init->get(), POLLIN, 0}, {inotify.get(), POLLIN, 0}};
        int ready = ::poll(fds, 2, static_cast<int>(std::max<std::int64_t>(wait.count(), 0)));
        if (ready < 0) {
            if (errno == EINTR) continue;
            return fail_sys(errno, "poll");
        }
        if (fds[1].revents) {
            char buffer[4096];
            while (::read(inotify.get(), buffer, sizeof buffer) > 0) {
            }
            oom.check(id, emit);
        }
        if (fds[0].revents) {
            // Init is gone: an OOM kill that ended it is already counted, report it before leaving.
            oom.check(id, emit);
            return {};
        }
        Clock::time_point now = Clock::now();
        if (now < next) continue;
        auto stats = cgroup::read_stats(dir.get(), where);
        if (!stats) {
            if (!state::open_live_pidfd(record.pid, record.pid_start_time, record.boot_id)) return {};
            return std::unexpected(stats.error());
        }
        emit(cgroup::stats_event_json(id, *stats));
        next += interval;
        if (next <= now) next = now + interval;  // a slow reader: do not burst to catch up
    }
}

}  // namespace husk
