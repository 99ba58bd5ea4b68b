// husk create: prepare, then hand the container to a detached monitor process that clones init.
//
// Process shape (docs/ARCHITECTURE.md, "Process shape"). husk create (P) forks an intermediate (I) that forks the
// monitor (M) and exits, so M is reparented exactly where init would be with runc: to the nearest child subreaper
// (containerd's shim, conmon) or to pid 1. M then looks at its new parent: pid 1 means nobody is waiting for init, so
// M becomes init's parent and reaps it (exact exit status); anything else is a subreaper that expects init as its
// child, so M clones init with CLONE_PARENT and only watches it through a pidfd.
#include <sys/socket.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>

#include "container/launch.hpp"
#include "base/fs.hpp"
#include "base/sys.hpp"
#include "base/trace.hpp"
#include "monitor/monitor_process.hpp"
#include "process/sync.hpp"

namespace husk {
namespace {

using container::Launch;

struct MonitorReport {
    pid_t pid = 0;
    pid_t monitor = 0;
    bool ok = false;
    Error error;
    process::Posture posture;
};

// The monitor must not keep create's state-dir lock: if create is killed, `delete --force` has to get it
// soon. A flock belongs to the open file description, so only closing our reference drops it; /dev/null
// takes over the number, which spawn_options() still lists for init to close.
void drop_lock_reference(int lock_fd) {
    auto null = open_fd("/dev/null", O_RDONLY);
    if (!null || ::dup3(null->get(), lock_fd, O_CLOEXEC) < 0) ::_exit(1);
}

// Create did not finish (its process died, or it failed after the report): init must not outlive it.
[[noreturn]] void abandon(process::Spawned& init, process::Parent parent) {
    sys::pidfd_send_signal(init.pidfd.get(), SIGKILL);
    if (parent == process::Parent::spawner) {
        siginfo_t info{};
        ::waitid(P_PIDFD, static_cast<id_t>(init.pidfd.get()), &info, WEXITED);
    }
    ::_exit(1);
}

// Every wait here ends at EOF when create dies, so an orphaned monitor ends too, and takes init with it.
[[noreturn]] void monitor_main(Launch& launch, int report) {
    char go;
    if (::read(report, &go, 1) != 1) ::_exit(1);
    process::Parent parent = ::getppid() == 1 ? process::Parent::spawner : process::Parent::spawners_parent;
    // The monitor keeps its share of create's lock until the one record that names it and init (spawn_options'
    // on_cloned, right after clone3, while init waits) is written: a `delete --force` after create was killed
    // waits for that write, then finds both named and kills them. Written after the drop, the record could land
    // while delete removed the state dir, which it then found not empty, and the monitor went unnamed. Until
    // then nothing of the monitor's needs killing: killed before `g`, create leaves it EOF and it exits; and
    // init, a copy of this process, closes its copy of the lock first thing (close_in_child). The drop follows
    // at once, before the hooks and the rest of the setup: they may take long, and a killed create must not
    // hold up `delete --force` or keep the container `creating` meanwhile.
    process::SpawnOptions options = container::spawn_options(launch, parent);
    options.on_cloned = [record_init = std::move(options.on_cloned), lock_fd = launch.dir->lock_fd()](pid_t init) {
        auto recorded = record_init(init);
        drop_lock_reference(lock_fd);
        return recorded;
    };
    auto spawned = process::spawn_init(launch.plan, *launch.buffers, options);
    // A clone3 that failed never called on_cloned: the lock goes with this process, which exits below.
    MonitorReport message;
    if (!spawned) {
        message.error = spawned.error();
    } else {
        message.ok = true;
        message.pid = spawned->pid;
        message.monitor = ::getpid();
        message.posture = spawned->posture.value_or(process::Posture{});
    }
    bool sent = ::send(report, &message, sizeof message, MSG_NOSIGNAL) == static_cast<ssize_t>(sizeof message);
    if (!spawned) ::_exit(1);
    // Create commits only after it recorded init: until its byte arrives, init belongs to nobody else.
    char committed = 0;
    if (!sent || ::read(report, &committed, 1) != 1 || committed != 'c') abandon(*spawned, parent);
    trace::mark("monitor: watching");
    monitor::run_monitor(container::monitor_plan(launch), std::move(*spawned),
                           parent == process::Parent::spawner ? monitor::Role::parent : monitor::Role::watcher,
                           report, std::move(launch.output), std::move(launch.caller));
}

}  // namespace

Result<void> create_container(const Runtime& runtime, const ContainerId& id, const CreateOptions& options) {
    auto launch = TRY(container::prepare_launch(runtime, id, options));
    int pair[2];
    if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) != 0) return fail_sys(errno, "socketpair");
    UniqueFd ours(pair[0]), theirs(pair[1]);

    launch->spawn_attempted = true;
    pid_t intermediate = ::fork();
    if (intermediate < 0) return fail_sys(errno, "fork");
    if (intermediate == 0) {
        ours.reset();
        pid_t monitor = ::fork();
        if (monitor == 0) monitor_main(*launch, theirs.get());
        ::_exit(monitor < 0 ? 1 : 0);
    }
    theirs.reset();
    int status = 0;
    while (::waitpid(intermediate, &status, 0) < 0 && errno == EINTR) {
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return fail_msg("could not start the container monitor");
    // The intermediate is gone, so the monitor has been reparented: let it look at its parent and spawn.
    if (::send(ours.get(), "g", 1, MSG_NOSIGNAL) != 1) return fail_sys(errno, "start monitor");
    MonitorReport report;
    ssize_t n = ::read(ours.get(), &report, sizeof report);
    if (n != static_cast<ssize_t>(sizeof report)) return fail_msg("container monitor exited during setup");
    if (!report.ok) return fail(report.error);

    if (auto recorded = container::record_created(*launch, report.pid, report.monitor, options.pid_file, report.posture); !recorded) {
        monitor::kill_init(report.pid);
        return std::unexpected(recorded.error());
    }
    if (::send(ours.get(), "c", 1, MSG_NOSIGNAL) != 1) {
        monitor::kill_init(report.pid);
        return fail_msg("the container monitor exited before create finished");
    }
    launch->commit();
    trace::mark("committed");
    return {};
}

}  // namespace husk
