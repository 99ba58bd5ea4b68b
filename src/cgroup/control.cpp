// Operations on a live cgroup: its processes, signalling all of them, freezing and thawing.
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <csignal>

#include "base/fs.hpp"
#include "base/sys.hpp"
#include "cgroup/cgroup.hpp"
#include "cgroup/hierarchy.hpp"

namespace husk::cgroup {
namespace {

using namespace std::chrono_literals;

Result<void> parse_procs(std::string_view text, std::vector<pid_t>& out, const std::string& where) {
    while (!text.empty()) {
        std::size_t end = text.find('\n');
        std::string_view line = text.substr(0, end);
        if (!line.empty()) {
            pid_t pid = 0;
            auto [ptr, ec] = std::from_chars(line.data(), line.data() + line.size(), pid);
            if (ec != std::errc() || ptr != line.data() + line.size() || pid <= 0)
                return fail_msg("unexpected line \"" + std::string(line) + "\" in " + where + "/cgroup.procs");
            out.push_back(pid);
        }
        if (end == std::string_view::npos) break;
        text.remove_prefix(end + 1);
    }
    return {};
}

// The pids of the cgroup open at dir_fd and of every cgroup below it.
Result<void> collect_pids(int dir_fd, const std::string& where, std::vector<pid_t>& out) {
    std::string procs = TRY(read_cgroup_file(dir_fd, "cgroup.procs", where));
    TRY(parse_procs(procs, out, where));
    std::vector<std::string> children = TRY(list_child_cgroups(dir_fd, where));
    for (const std::string& name : children) {
        auto child = open_fd_at(dir_fd, name, O_DIRECTORY | O_RDONLY | O_NOFOLLOW, where + "/" + name);
        if (!child && child.error().err == ENOENT) continue;  // removed meanwhile
        UniqueFd child_fd = TRY(std::move(child));
        TRY(collect_pids(child_fd.get(), where + "/" + name, out));
    }
    return {};
}

// True when /proc/PID/cgroup puts the process in path or below it (the "0::" line is the v2 one).
bool still_member(pid_t pid, const std::string& path) {
    auto text = read_file("/proc/" + std::to_string(pid) + "/cgroup");
    if (!text) return false;
    std::string_view rest = *text;
    while (!rest.empty()) {
        std::string_view line = rest.substr(0, rest.find('\n'));
        rest.remove_prefix(std::min(rest.size(), line.size() + 1));
        if (!line.starts_with("0::")) continue;
        line.remove_prefix(3);
        return line == path || (line.starts_with(path) && line.size() > path.size() && line[path.size()] == '/');
    }
    return false;
}

// Signals one pid read from cgroup.procs. Holding a pidfd pins the process, so once /proc/PID/cgroup
// confirms it is still in the container's cgroup, the signal cannot reach a recycled pid.
Result<void> signal_member(pid_t pid, const std::string& path, int signal) {
    UniqueFd pidfd(sys::pidfd_open(pid));
    if (!pidfd) return errno == ESRCH ? Result<void>() : fail_sys(errno, "pidfd_open", std::to_string(pid));
    if (!still_member(pid, path)) return {};
    if (sys::pidfd_send_signal(pidfd.get(), signal) != 0 && errno != ESRCH)
        return fail_sys(errno, "pidfd_send_signal", std::to_string(pid));
    return {};
}

Result<void> signal_each(int dir_fd, const std::string& path, const std::string& where, int signal) {
    std::vector<pid_t> pids;
    TRY(collect_pids(dir_fd, where, pids));
    for (pid_t pid : pids) TRY(signal_member(pid, path, signal));
    return {};
}

// Waits until cgroup.events says "frozen <want>". kernfs wakes poll(2) with POLLPRI when the file changes;
// the short poll timeout re-reads anyway, so a missed wake-up costs milliseconds, not the whole timeout.
Result<void> wait_frozen(int dir_fd, bool want, std::chrono::milliseconds timeout, const std::string& where) {
    UniqueFd events = TRY(open_fd_at(dir_fd, "cgroup.events", O_RDONLY, where + "/cgroup.events"));
    auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
        if (::lseek(events.get(), 0, SEEK_SET) < 0) return fail_sys(errno, "lseek", where + "/cgroup.events");
        auto text = read_fd(events.get());
        if (!text) return fail_sys(text.error().err, "read", where + "/cgroup.events");
        if (flat_keyed_value(*text, "frozen") == (want ? 1 : 0)) return {};
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        if (left <= 0ms) {
            const char* op =
                want ? "wait for \"frozen 1\" in cgroup.events of" : "wait for \"frozen 0\" in cgroup.events of";
            return fail_sys(ETIMEDOUT, op, where);
        }
        pollfd pfd{events.get(), POLLPRI, 0};
        if (::poll(&pfd, 1, static_cast<int>(std::min(left, 20ms).count())) < 0 && errno != EINTR)
            return fail_sys(errno, "poll", where + "/cgroup.events");
    }
}

Result<bool> read_freeze(int dir_fd, const std::string& where) {
    std::string text = TRY(read_cgroup_file(dir_fd, "cgroup.freeze", where));
    return !text.empty() && text[0] == '1';
}

Result<void> freeze_at(int dir_fd, bool frozen, std::chrono::milliseconds timeout, const std::string& where) {
    TRY(write_cgroup_file(dir_fd, "cgroup.freeze", frozen ? "1" : "0", where));
    auto settled = wait_frozen(dir_fd, frozen, timeout, where);
    // A half-frozen cgroup is worse than a failed pause: let it run again.
    if (!settled && frozen) (void)write_cgroup_file(dir_fd, "cgroup.freeze", "0", where);
    return settled;
}

}  // namespace

Result<std::vector<pid_t>> read_procs(const CgroupLocation& cgroup) {
    UniqueFd dir = TRY(open_cgroup_dir(cgroup));
    std::string where = cgroup.where();
    std::string text = TRY(read_cgroup_file(dir.get(), "cgroup.procs", where));
    std::vector<pid_t> pids;
    TRY(parse_procs(text, pids, where));
    return pids;
}

Result<std::vector<pid_t>> read_all_procs(const CgroupLocation& cgroup) {
    UniqueFd dir = TRY(open_cgroup_dir(cgroup));
    std::vector<pid_t> pids;
    TRY(collect_pids(dir.get(), cgroup.where(), pids));
    return pids;
}

Result<void> kill_all(const CgroupLocation& cgroup, int signal) {
    UniqueFd dir = TRY(open_cgroup_dir(cgroup));
    std::string where = cgroup.where();
    // cgroup.kill (Linux 5.14) kills the whole subtree atomically, forks in flight included.
    if (signal == SIGKILL && ::faccessat(dir.get(), "cgroup.kill", F_OK, 0) == 0)
        return write_cgroup_file(dir.get(), "cgroup.kill", "1", where);

    // Freeze first so that no process forks a child we would miss, then signal, then thaw. A fatal signal
    // kills even frozen processes; a handled one runs when they thaw. If the freeze does not settle (a task
    // stuck in the kernel), freeze_at has undone it and we signal anyway: the freeze only narrows a race.
    bool has_freezer = ::faccessat(dir.get(), "cgroup.freeze", F_OK, 0) == 0;
    bool froze = false;
    if (has_freezer && !TRY(read_freeze(dir.get(), where))) froze = freeze_at(dir.get(), true, 5s, where).has_value();
    auto signalled = signal_each(dir.get(), cgroup.path, where, signal);
    if (froze) {
        auto thawed = freeze_at(dir.get(), false, 5s, where);
        if (signalled && !thawed) return thawed;
    }
    return signalled;
}

Result<void> set_frozen(const CgroupLocation& cgroup, bool frozen, std::chrono::milliseconds timeout) {
    UniqueFd dir = TRY(open_cgroup_dir(cgroup));
    return freeze_at(dir.get(), frozen, timeout, cgroup.where());
}

Result<bool> is_frozen(const CgroupLocation& cgroup) {
    UniqueFd dir = TRY(open_cgroup_dir(cgroup));
    return read_freeze(dir.get(), cgroup.where());
}

}  // namespace husk::cgroup
