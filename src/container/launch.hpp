// Launch: what `create` and `run` share: load and check everything first (bad input leaves nothing behind),
// then create the state dir, the cgroup and the exec fifo, with rollback until the container exists.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "cgroup/cgroup.hpp"
#include "container/bundle.hpp"
#include "container/tenant.hpp"
#include "monitor/caller_watch.hpp"
#include "monitor/counters.hpp"
#include "monitor/limits.hpp"
#include "monitor/monitor_process.hpp"
#include "husk/container.hpp"
#include "process/container_plan.hpp"
#include "process/spawn.hpp"
#include "state/state_dir.hpp"

namespace husk::container {

// Whether the caller can take init's pty master itself when process.terminal is true and there is no
// --console-socket: only `husk run` in the foreground, which relays its own terminal to it.
enum class PtyRelay { refused, offered };

struct Launch {
    Bundle bundle;  // bundle.config: the effective config, stored in the state dir and named by the record
    process::ContainerPlan plan;
    std::unique_ptr<process::ChildBuffers> buffers;
    std::optional<state::StateDir> dir;
    std::optional<cgroup::Cgroup> cgroup;
    UniqueFd exec_fifo;       // O_RDWR: handed to init
    UniqueFd console_socket;  // connected --console-socket
    bool relay_terminal = false;  // process.terminal without --console-socket: the spawner keeps the pty master
    state::Record record;
    monitor::StopPolicy policy;        // run.husk.timeout & co. of the effective config, enforced by the monitor
    std::optional<monitor::Caller> caller;  // run.husk.die-with-parent: husk's parent, watched from before anything exists
    std::optional<monitor::OutputPlumbing> output;  // run.husk.output-limit: the pump's pipes and the stdio to pump into
    std::string root;                              // --root: the rollback of a tenant's start record needs it
    std::optional<TenantAdmission> tenant;         // run.husk.tenant: admitted, its start record written at the end

    explicit Launch(Bundle loaded) : bundle(std::move(loaded)) {}
    Launch(const Launch&) = delete;
    Launch& operator=(const Launch&) = delete;
    ~Launch();                // rolls back unless committed
    void commit() { committed_ = true; }
    // Set before init is cloned: from then on a failed create has a container to destroy, and runtime.md
    // says poststop hooks run when it is (a failing prestart hook, for example, continues at delete).
    bool spawn_attempted = false;

private:
    bool committed_ = false;
};

// With a `framing` (`husk run --output-format json` in the foreground) the output is pumped even without a cap,
// framed, and a terminal is refused.
Result<std::unique_ptr<Launch>> prepare_launch(const Runtime& runtime, const ContainerId& id, const CreateOptions& options,
                                               PtyRelay relay = PtyRelay::refused,
                                               monitor::Framing framing = {});

// Spawn options for this launch, with the hook state JSON built from the record; init's identity goes into the
// record (with the calling process as its monitor) before init leaves its first wait.
process::SpawnOptions spawn_options(Launch& launch, process::Parent parent);

// What the monitor of this launch enforces and where it records the verdict.
monitor::MonitorPlan monitor_plan(const Launch& launch);

// One warning per ambient capability of the process's user the kernel could not raise (caps/credentials.hpp).
void warn_ambient_dropped(const caps::CredentialsPlan& credentials, const std::function<void(const std::string&)>& warn);

// The --console-socket, connected (SOCK_STREAM, as runc's clients listen).
Result<UniqueFd> connect_console_socket(const std::string& path);

// runc writes the pid file atomically next to its final name (nothing when path is empty), here through the
// caller-file rule (base/caller_file.hpp); check_pid_file applies the rule before anything exists.
Result<void> write_pid_file(const std::string& path, pid_t pid);
Result<void> check_pid_file(const std::string& path);

// Fills pid, start time, boot id and the verified security posture, writes the record and the --pid-file.
Result<void> record_created(Launch& launch, pid_t pid, pid_t monitor, const std::string& pid_file,
                            const process::Posture& posture);

}  // namespace husk::container
