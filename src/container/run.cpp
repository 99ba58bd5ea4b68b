// husk run: create + start (+ wait). In the foreground husk itself is init's parent and monitor: it forwards
// signals, reaps init, records the exit and mirrors its status; with --detach it is create + start.
#include <unistd.h>

#include <csignal>

#include "container/launch.hpp"
#include "container/monitor_process.hpp"
#include "husk/container.hpp"

namespace husk {

Result<int> run_container(const Runtime& runtime, const RunOptions& options) {
    if (options.detach) {
        TRY(create_container(runtime, options.create));
        if (auto started = start_container(runtime, options.create.id); !started) {
            (void)delete_container(runtime, options.create.id, true);
            return std::unexpected(started.error());
        }
        return 0;
    }
    int exit_code = 0;
    {
        auto launch = TRY(container::prepare_launch(runtime, options.create));
        launch->spawn_attempted = true;
        auto spawned = TRY(process::spawn_init(launch->plan, *launch->buffers,
                                               container::spawn_options(*launch, process::Parent::spawner)));
        if (auto recorded = container::record_created(*launch, spawned.pid, ::getpid(), options.create.pid_file); !recorded) {
            container::kill_init(spawned.pid);
            return std::unexpected(recorded.error());
        }
        launch->commit();
        std::string state_path = launch->dir->path();
        launch.reset();  // releases the create lock so start can take it

        // Signals a terminal or a supervisor sends to `husk run` go to the container, as with runc.
        monitor::WaitOptions wait;
        wait.role = monitor::Role::parent;
        wait.sync = spawned.sync.get();
        sigset_t forward;
        sigemptyset(&forward);
        for (int sig : {SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGWINCH, SIGCONT})
            sigaddset(&forward, sig);
        wait.forward = forward;

        if (auto started = start_container(runtime, options.create.id); !started) {
            container::kill_init(spawned.pid);
            (void)monitor::wait_for_exit(spawned.pidfd.get(), monitor::WaitOptions{});
            (void)delete_container(runtime, options.create.id, true);
            return std::unexpected(started.error());
        }
        auto status = monitor::wait_for_exit(spawned.pidfd.get(), wait);
        monitor::ExitStatus exit = status ? *status : monitor::ExitStatus{};
        container::record_exit(state_path, spawned.pid, exit);
        exit_code = exit.known ? exit.code : 255;
    }
    if (!options.keep) {
        auto deleted = delete_container(runtime, options.create.id, true);
        if (!deleted) return std::unexpected(deleted.error());
        for (const auto& warning : *deleted) std::fprintf(stderr, "husk: warning: %s\n", warning.c_str());
    }
    return exit_code;
}

}  // namespace husk
