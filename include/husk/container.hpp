// The container lifecycle as a library: what each `husk` verb does. The CLI parses flags and calls these;
// errors come back as values and are printed once, by the CLI.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "husk/container_id.hpp"
#include "husk/error.hpp"
#include "husk/settings.hpp"
#include "husk/spec.hpp"

namespace husk {

namespace spec {
struct SandboxSettings;
}

enum class CgroupManager { cgroupfs, disabled };

struct Runtime {
    std::string root = "/run/husk";
    CgroupManager cgroup_manager = CgroupManager::cgroupfs;
    // husk runs without root: its effective uid is not 0 (docs/rootless.md). Decided once, by the CLI.
    bool rootless = false;
};

// The state root when --root is not given: /run/husk for root; without root $XDG_RUNTIME_DIR/husk when that
// is set (an absolute directory of the caller's), else $HOME/.local/state/husk (docs/rootless.md).
Result<std::string> default_root(bool rootless);

// Every verb takes the container's id as a ContainerId: the CLI parses it once, and nothing below sees an invalid one.
struct CreateOptions {
    std::string bundle;           // empty: the current directory
    std::string config;           // empty: <bundle>/config.json; relative paths are relative to the bundle
    // A config held in memory (`husk sandbox` builds one): used instead of reading a file, through the same
    // parse and validation; `config` is ignored, and `bundle` (default: the current directory) still anchors
    // relative paths. The state dir keeps a copy, as of any config.
    std::optional<std::string> config_text;
    // `husk sandbox`: the compiled seccomp program is kept in the state root's .seccomp-cache, which husk
    // sandbox's root is husk's own to keep; never in a root a container manager gave (docs/ARCHITECTURE.md,
    // "Starting fast").
    bool seccomp_cache = false;
    std::string pid_file;
    std::string console_socket;
    bool no_pivot = false;
    bool no_new_keyring = false;  // husk never creates a session keyring, so this is always in effect
    int preserve_fds = 0;
    // The husk settings the command line gave (--timeout, --net-allow, --die-with-parent, ...): each replaces the
    // same run.husk.* annotation of config.json. The container is created with, and stores as its config.json,
    // the config with these applied (docs/ARCHITECTURE.md, "The effective config"); every later verb reads that.
    spec::HuskSettings overrides;
    // Called with each warning about config.json (an unknown hook kind) when create or run reads it.
    std::function<void(const std::string&)> warn;
};

// Where `husk run` delivers its verdict (docs/husk.8.md, VERDICT): a file replaced atomically, or an fd written
// once. Exactly one verdict per run, also when husk refuses the config or fails before the program starts.
struct VerdictTarget {
    std::string path;
    int fd = -1;
    bool wanted() const { return !path.empty() || fd >= 0; }
};

// How `husk run` in the foreground passes the program's output on (docs/husk.8.md, OUTPUT FORMAT): text, stdout
// and stderr to husk's own as they are; json, one JSON line per chunk on husk's stdout ({"stream","t","data"},
// base64 for bytes that are not UTF-8), then the verdict as the last line. Refused with process.terminal.
enum class OutputFormat { text, json };

struct RunOptions {
    CreateOptions create;
    bool detach = false;
    bool keep = false;            // keep the stopped container's state after it exits
    VerdictTarget verdict;        // foreground only
    OutputFormat output_format = OutputFormat::text;  // foreground only
};

Result<void> create_container(const Runtime& runtime, const ContainerId& id, const CreateOptions& options);
// Warnings (a failing poststart hook) are returned for the CLI to print.
Result<std::vector<std::string>> start_container(const Runtime& runtime, const ContainerId& id);

struct RunOutcome {
    int exit_code = 0;  // to mirror: the container's exit code, or 128 + signal; 0 with --detach
    std::vector<std::string> warnings;
    std::string failure;  // why the workload never ran, when it failed after start (exec, startContainer hook)
};
Result<RunOutcome> run_container(const Runtime& runtime, const ContainerId& id, const RunOptions& options);
// What `husk run` and `husk sandbox` exit with when husk refused the run, before anything of it existed: the
// verdict's reason `refused` or `tenant-quota`, as for a command line that does not parse (husk(8), EXIT STATUS).
inline constexpr int refusal_status = 2;
// The status of a run that failed with `error`: refusal_status for a refusal, else 1 (husk itself failed).
inline int error_status(const Error& error) {
    return error.kind == ErrorKind::refused || error.kind == ErrorKind::tenant_quota ? refusal_status : 1;
}
// The verdict of a run refused before run_container was reached (its flags or its id did not parse): reason
// `refused`; `id` is the id as given (empty when unknown), `status` is what husk exits with. With json, also the
// verdict line on stdout (the one line of the run).
Result<void> deliver_refused_verdict(const VerdictTarget& target, const std::string& id, const Error& error,
                                     int status, OutputFormat format = OutputFormat::text);
// `husk exec`: a new process in a running (or created) container, runc's flags. Without `process`, the
// stored config.json's process with args replaced and the flags applied as runc applies them.
struct ExecOptions {
    std::optional<spec::Process> process;  // --process FILE, parsed; the flags below but tty then do not apply
    std::vector<std::string> args;         // ARGS after the id (without --process)
    bool tty = false;
    std::string console_socket;
    std::string cwd;
    std::vector<std::string> env;          // NAME=value, appended (a later value of a name wins)
    std::string user;                      // "uid[:gid]", numeric
    std::optional<std::vector<std::uint32_t>> additional_gids;
    std::vector<std::string> caps;         // added to bounding, effective, permitted (ambient if inheritable)
    bool no_new_privs = false;
    int preserve_fds = 0;
    std::string pid_file;
    bool detach = false;
    bool ignore_paused = false;
    std::string cgroup;                    // a sub-cgroup of the container's, relative
    std::string process_label, apparmor;   // refused when not empty: husk has no LSM support
    // Called with each warning before the process starts (an ambient capability the kernel could not raise).
    std::function<void(const std::string&)> warn;
};
struct ExecOutcome {
    int exit_code = 0;  // foreground: the process's exit code, or 128 + signal; 0 with --detach
};
Result<ExecOutcome> exec_container(const Runtime& runtime, const ContainerId& id, const ExecOptions& options);

Result<std::string> container_state_json(const Runtime& runtime, const ContainerId& id);
Result<void> kill_container(const Runtime& runtime, const ContainerId& id, int signal, bool all);
// Warnings (a failing poststop hook) are returned for the CLI to print. A container that delete --force kills, or
// that stopped just before, keeps its record until its live monitor has recorded the exit (at most 5 s), so the
// verdict is the monitor's (`killed`) and `husk state` answers meanwhile. `final_state` (delete --print-state):
// the state JSON of that record as `husk state` prints it, husk.exit included; set once known, also when the
// delete fails afterwards; left empty when there is no record (an unknown id with --force).
Result<std::vector<std::string>> delete_container(const Runtime& runtime, const ContainerId& id, bool force,
                                                  std::string* final_state = nullptr);

// cgroup.freeze (cgroup v2 core: no controller needed); status becomes "paused" / "running".
Result<void> pause_container(const Runtime& runtime, const ContainerId& id);
Result<void> resume_container(const Runtime& runtime, const ContainerId& id);
// Host pids of every process in the container's cgroup.
Result<std::vector<pid_t>> container_pids(const Runtime& runtime, const ContainerId& id);

struct ContainerSummary {
    ContainerId id;
    pid_t pid = 0;
    std::string status;
    std::string bundle;
    std::string created;
    std::string owner;
};
std::vector<ContainerSummary> list_containers(const Runtime& runtime);
// The ids list_containers would list (`list -q`), without reading a record.
std::vector<ContainerId> list_container_ids(const Runtime& runtime);
// `husk gc`: deletes every container that is stopped, whose monitor is gone (nobody is about to record its
// verdict) and whose owner is gone: the process that ran `husk create`/`husk run` (recorded pid + start time).
// Never one that is creating, created, running or paused, nor one whose owner is not recorded.
struct GcOutcome {
    std::vector<ContainerId> deleted;
    std::vector<Error> errors;         // a container that qualified but could not be deleted
};
GcOutcome gc_containers(const Runtime& runtime);

// `husk update`: changes the cgroup limits of a created, running or paused container. Only the fields present
// in resources change (runc's semantics); devices, when present, replace the device allow-list. The container's
// effective config supplies the rest (its linux.devices for the default allow-list, run.husk.oom-group).
Result<void> update_container(const Runtime& runtime, const ContainerId& id, const spec::Resources& resources);

// `husk events`: runc's event stream, one JSON object per line (runc types/events.go).
// The container's cgroup counters now: {"type":"stats","id":ID,"data":{...}}.
Result<std::string> container_stats_event(const Runtime& runtime, const ContainerId& id);
// Calls emit with the container's status first ({"type":"created"|"started","id":ID}), then, as they happen:
// a stats event every interval; {"type":"started"} at start; {"type":"oom"} when memory.events oom_kill rises;
// {"type":"pids-limit","data":{"count":N}} when pids.events max rises by N; {"type":REASON,"data":{"detail":..}}
// when the monitor records the cause of a stop it makes (timeout, output-limit, cpu-limit); and last
// {"type":"stopped","data":{code, signal, reason, detail, finished, factors, usage}} (husk.exit as `state`
// prints it, with the husk object's finished, factors and usage), after which it returns success.
// A container that is not created, running or paused is an error.
Result<void> watch_container_events(const Runtime& runtime, const ContainerId& id, std::chrono::milliseconds interval,
                                    const std::function<void(const std::string& line)>& emit);

// `husk tenant` (docs/tenants.md): a tenant's ceilings across all its runs (--tenant, run.husk.tenant), kept in
// <root>/tenants/NAME.json; an absent ceiling is none. `set` replaces them all.
struct TenantCeilings {
    std::optional<std::chrono::microseconds> cpu;     // cgroup CPU time of all runs
    std::optional<std::chrono::microseconds> wall;    // wall time of all runs
    std::optional<std::uint64_t> runs;                // runs started
    std::optional<std::uint64_t> output;              // stdout+stderr bytes of all runs
    std::optional<std::uint64_t> concurrent;          // runs alive at once
    std::optional<std::chrono::microseconds> period;  // the window the others count in (none: since the last reset)
    // Kernel-enforced across all live runs at once, in the tenant's cgroup (docs/tenants.md; cgroup v2 only).
    std::optional<std::uint64_t> memory;  // memory.max, bytes
    std::optional<std::uint64_t> pids;    // pids.max
    std::optional<double> cpus;           // cpu.max, in CPUs (quota per 100 ms period)
};
Result<void> set_tenant(const Runtime& runtime, const std::string& name, const TenantCeilings& ceilings);
// {name, ceilings, windowStartUsec, used, reserved (held by live runs), remaining, exhausted?, live[]}.
Result<std::string> tenant_json(const Runtime& runtime, const std::string& name);
// What ended before now no longer counts (runs still alive are charged when they end).
Result<void> reset_tenant(const Runtime& runtime, const std::string& name);
// Rewrites the tenant's ledger without what no longer changes a total (docs/tenants.md, "Compaction"); admission
// does it by itself once the ledger passes 1 MiB.
Result<void> compact_tenant(const Runtime& runtime, const std::string& name);

// `husk features`: the runtime-spec features document (features.md) of this build on this kernel, as JSON.
std::string features_json();

// A host file husk itself writes while or after a sandbox's program runs (`--verdict`, `--log`), and the flag that
// named it.
struct SandboxOutput {
    std::string flag;  // "--verdict"
    std::string path;  // as the caller gave it; empty: none
};

// An output in a --bind-rw directory is refused: the program could make its name a directory or it, or a
// component, a symlink (compared with symlinks resolved). sandbox_config_json checks every output so.
Result<void> check_sandbox_output(const SandboxOutput& output, const spec::SandboxSettings& settings);

// `husk sandbox`: the config.json text of the settings (spec/sandbox_config.hpp) on this host: without a
// rootfs, the host's /usr, /bin, /lib* that exist and ld.so.cache (with the host's network, the resolver's
// files) on a tmpfs root over the state root (run.husk.root=tmpfs); with one, its absolute path. Every rule
// about which host paths a sandbox may see is checked here (docs/security.md, "husk sandbox threat model"):
// relative bind sources are made absolute, no output lies in a --bind-rw directory, no bind or rootfs is, is
// in or holds the state root, and what the sandbox's root must reach or find in a --rootfs is there.
Result<std::string> sandbox_config_json(const Runtime& runtime, spec::SandboxSettings settings,
                                        const std::vector<SandboxOutput>& outputs = {});

// `husk seccomp-profile`: the seccomp profile husk ships for untrusted code, as a linux.seccomp object
// (docs/security.md, "The default profile"); laid out to be read, or compact for a config to run.
std::string default_seccomp_profile_json(bool pretty = true);

}  // namespace husk
