// events: the container's cgroup counters as runc's JSON events, once (--stats) or as a stream that also
// reports the container's transitions as they happen (created, started, oom, pids-limit, the cause the monitor
// records before it stops the container, stopped with the verdict) and ends after `stopped`.
#include <poll.h>
#include <sys/file.h>
#include <sys/inotify.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>

#include "base/json_writer.hpp"
#include "cgroup/hierarchy.hpp"
#include "cgroup/stats.hpp"
#include "container/observe.hpp"
#include "container/config.hpp"
#include "husk/container.hpp"
#include "monitor/counters.hpp"
#include "monitor/stop_reasons.hpp"
#include "frontend/verdict_reader.hpp"
#include "state/process_identity.hpp"

namespace husk {
namespace {

using container::Status;

// StateDir's record file: written as tmp + fsync + rename, so a new version arrives as IN_MOVED_TO.
constexpr const char* record_file = "state.json";

// The record, read under the shared lock and released right after: a watcher that runs for hours must not block
// delete, start or the monitor. Nothing when the record is gone (the container was deleted).
Result<std::optional<state::Record>> read_record_briefly(state::StateDir& dir) {
    TRY(dir.lock(state::Lock::shared));
    auto record = dir.read_record();
    ::flock(dir.lock_fd(), LOCK_UN);
    if (record) return std::optional<state::Record>(std::move(*record));
    if (record.error().err == ENOENT) return std::optional<state::Record>();
    return std::unexpected(record.error());
}

// The record and status of a container whose init is alive, read under the shared lock (released on return).
struct Live {
    state::StateDir dir;
    state::Record record;
    Status status;
};

Result<Live> open_live(const Runtime& runtime, const ContainerId& id, int inotify = -1, int* state_watch = nullptr) {
    auto dir = TRY(state::StateDir::open(runtime.root, id));
    if (inotify >= 0) {
        // Watch before reading, so no write between the read and the watch goes unseen. Through /proc/self/fd:
        // the directory just opened, not whatever the path names by now.
        std::string self = "/proc/self/fd/" + std::to_string(dir.fd());
        *state_watch = ::inotify_add_watch(inotify, self.c_str(), IN_MOVED_TO | IN_CLOSE_WRITE | IN_DELETE_SELF);
        if (*state_watch < 0) return fail_sys(errno, "inotify_add_watch", dir.path());
    }
    TRY(dir.lock(state::Lock::shared));
    std::optional<state::Record> record;
    if (auto r = dir.read_record()) record = std::move(*r);
    else if (r.error().err != ENOENT) return std::unexpected(r.error());
    Status status = container::observe(dir, record).status;
    ::flock(dir.lock_fd(), LOCK_UN);
    // runc refuses a stopped container with the same words.
    if (!record || status == Status::stopped || status == Status::creating)
        return fail_msg("container with id " + id.str() + " is not running");
    if (record->cgroup_path.empty())
        return fail_msg("events needs the container's cgroup, and this container has none (--cgroup-manager disabled)");
    return Live{std::move(dir), std::move(*record), status};
}

// A counter in a cgroup events file (memory.events oom_kill, pids.events max) and how much it rose since the
// last look. A file that is missing (controller not enabled) or gone (the cgroup was removed) never rises.
class RisingCounter {
public:
    using Reader = std::function<std::optional<std::uint64_t>()>;
    explicit RisingCounter(Reader read) : read_(std::move(read)), last_(read_().value_or(0)) {}
    std::uint64_t rise() {
        std::optional<std::uint64_t> now = read_();
        if (!now || *now <= last_) return 0;
        std::uint64_t rose = *now - last_;
        last_ = *now;
        return rose;
    }

private:
    Reader read_;
    std::uint64_t last_;
};

// {"type":TYPE,"id":ID} with "data" when data writes it: the shape of runc's events.
std::string event_json(std::string_view type, std::string_view id,
                       const std::function<void(JsonWriter&)>& data = nullptr) {
    JsonWriter w;
    w.begin_object();
    w.key("type").string(type);
    w.key("id").string(id);
    if (data) {
        w.key("data").begin_object();
        data(w);
        w.end_object();
    }
    w.end_object();
    return w.str();
}

// The transitions of one container, told once each, in the order they happened.
class EventStream {
public:
    using Emit = std::function<void(const std::string& line)>;

    EventStream(Live live, UniqueFd inotify, int state_watch, Emit emit)
        : dir_(std::move(live.dir)), last_(std::move(live.record)), first_status_(live.status),
          inotify_(std::move(inotify)), state_watch_(state_watch), emit_(std::move(emit)) {}

    Result<void> run(std::chrono::milliseconds interval) {
        cgroup::CgroupLocation location = *container::cgroup_of(last_);  // open_live checked there is one
        std::string where = location.where();
        UniqueFd cgroup = TRY(cgroup::open_cgroup_dir(location));
        // cgroup-v2.rst: a value change in an events file generates a file modified event. A file that does not
        // exist (its controller is not enabled) has no events to report. Watched before the first read.
        int memory_watch = TRY(watch_file(where + "/memory.events"));
        int pids_watch = TRY(watch_file(where + "/pids.events"));
        int fd = cgroup.get();
        RisingCounter ooms([fd, where] {
            auto count = cgroup::read_oom_count(fd, where);
            return count ? *count : std::nullopt;
        });
        RisingCounter pids_hits([fd, where] { return monitor::read_pids_max_hits(fd, where); });
        auto check_counters = [&] {
            if (ooms.rise()) emit_(cgroup::oom_event_json(last_.id));
            if (std::uint64_t hits = pids_hits.rise())
                emit_(event_json(monitor::pids_limit_factor, last_.id, [hits](JsonWriter& w) { w.key("count").unsigned_integer(hits); }));
        };

        // Everything is watched now: the status the stream starts from, so a client knows where the container
        // is, and a cause already recorded (the grace after a timeout is running) is part of that.
        if (first_status_ == Status::created) {
            emit_(event_json("created", last_.id));
        } else {
            told_started_ = true;
            emit_(event_json("started", last_.id));
        }
        tell_changes(last_);

        std::optional<UniqueFd> init = state::open_live_pidfd(last_.pid, last_.pid_start_time, last_.boot_id);
        using Clock = std::chrono::steady_clock;
        Clock::time_point next = Clock::now() + interval;
        while (init) {
            auto wait = std::chrono::ceil<std::chrono::milliseconds>(next - Clock::now());
            pollfd fds[2] = {{init->get(), POLLIN, 0}, {inotify_.get(), POLLIN, 0}};
            int ready = ::poll(fds, 2, static_cast<int>(std::clamp<std::int64_t>(wait.count(), 0, INT_MAX)));
            if (ready < 0) {
                if (errno == EINTR) continue;
                return fail_sys(errno, "poll");
            }
            if (fds[1].revents) {
                Changes changes = drain_inotify(memory_watch, pids_watch);
                if (changes.counters) check_counters();
                if (changes.gone) break;
                if (changes.record) {
                    auto record = TRY(read_record_briefly(dir_));
                    if (!record || record->pid != last_.pid) break;  // deleted (and perhaps created again)
                    tell_changes(*record);
                    if (record->exit) break;
                }
            }
            if (fds[0].revents) {
                // Init is gone: an OOM kill or pids-limit hit that led there is already counted.
                check_counters();
                break;
            }
            Clock::time_point now = Clock::now();
            if (now < next) continue;
            auto stats = cgroup::read_stats(cgroup.get(), where);
            if (!stats) {
                if (!state::open_live_pidfd(last_.pid, last_.pid_start_time, last_.boot_id)) break;
                return std::unexpected(stats.error());
            }
            emit_(cgroup::stats_event_json(last_.id, *stats));
            next += interval;
            if (next <= now) next = now + interval;  // a slow reader: do not burst to catch up
        }
        return stop();
    }

private:
    struct Changes {
        bool record = false;    // a new state.json
        bool counters = false;  // memory.events or pids.events changed
        bool gone = false;      // the state directory was removed
    };

    Result<int> watch_file(const std::string& path) {
        int wd = ::inotify_add_watch(inotify_.get(), path.c_str(), IN_MODIFY);
        if (wd < 0 && errno != ENOENT) return fail_sys(errno, "inotify_add_watch", path);
        return wd;
    }

    Changes drain_inotify(int memory_watch, int pids_watch) {
        Changes changes;
        alignas(inotify_event) char buffer[4096];
        ssize_t n;
        while ((n = ::read(inotify_.get(), buffer, sizeof buffer)) > 0) {
            for (char* at = buffer; at < buffer + n;) {
                const auto* event = reinterpret_cast<const inotify_event*>(at);
                at += sizeof(inotify_event) + event->len;
                if (event->wd == state_watch_) {
                    if (event->mask & (IN_DELETE_SELF | IN_IGNORED)) changes.gone = true;
                    else if (event->len && std::strcmp(event->name, record_file) == 0) changes.record = true;
                } else if ((event->wd == memory_watch || event->wd == pids_watch) && (event->mask & IN_MODIFY)) {
                    changes.counters = true;
                }
            }
        }
        return changes;
    }

    // What is new in record since the last one read: start, and the cause the monitor records before it
    // signals (timeout, output-limit, cpu-limit), each told once.
    void tell_changes(const state::Record& record) {
        if (!told_started_ && !record.started.empty()) {
            told_started_ = true;
            emit_(event_json("started", record.id));
        }
        if (!told_cause_ && record.cause) {
            told_cause_ = true;
            const state::StopCause& cause = *record.cause;
            // The limit's event name from the table; a reason this husk does not know is told under its own name.
            const monitor::StopReason* reason = monitor::find_stop_reason(cause.reason);
            std::string_view type = reason && !reason->event.empty() ? reason->event : std::string_view(cause.reason);
            emit_(event_json(type, record.id, [&cause](JsonWriter& w) { w.key("detail").string(cause.detail); }));
        }
        if (&record != &last_) last_ = record;
    }

    // Init has gone: the monitor's verdict, waited for as `state` waits for it, then `stopped`, the last event.
    Result<void> stop() {
        auto record = TRY(read_record_briefly(dir_));
        if (record && record->pid == last_.pid && !record->exit) {
            frontend::await_verdict(last_);
            record = TRY(read_record_briefly(dir_));
        }
        bool deleted = !record || record->pid != last_.pid;
        if (!deleted) tell_changes(*record);
        std::optional<state::Record> final;
        if (!deleted) final = last_;
        emit_(event_json("stopped", last_.id, [&](JsonWriter& w) { frontend::write_stopped_members(w, final); }));
        return {};
    }

    state::StateDir dir_;
    state::Record last_;
    Status first_status_;
    UniqueFd inotify_;
    int state_watch_;
    Emit emit_;
    bool told_started_ = false;
    bool told_cause_ = false;
};

}  // namespace

Result<std::string> container_stats_event(const Runtime& runtime, const ContainerId& id) {
    Live live = TRY(open_live(runtime, id));
    cgroup::CgroupLocation location = *container::cgroup_of(live.record);  // open_live checked there is one
    std::string where = location.where();
    UniqueFd dir = TRY(cgroup::open_cgroup_dir(location));
    cgroup::Stats stats = TRY(cgroup::read_stats(dir.get(), where));
    return cgroup::stats_event_json(id.str(), stats);
}

Result<void> watch_container_events(const Runtime& runtime, const ContainerId& id, std::chrono::milliseconds interval,
                                    const std::function<void(const std::string& line)>& emit) {
    if (interval <= std::chrono::milliseconds(0)) return fail_msg("the interval must be greater than 0");
    UniqueFd inotify(::inotify_init1(IN_CLOEXEC | IN_NONBLOCK));
    if (!inotify) return fail_sys(errno, "inotify_init1");
    int state_watch = -1;
    Live live = TRY(open_live(runtime, id, inotify.get(), &state_watch));
    EventStream stream(std::move(live), std::move(inotify), state_watch, emit);
    return stream.run(interval);
}

}  // namespace husk
