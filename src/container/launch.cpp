#include "container/launch.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <algorithm>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstdlib>

#include "base/caller_file.hpp"
#include "base/fs.hpp"
#include "base/procfs.hpp"
#include "hooks/hooks.hpp"
#include "base/subordinate_ids.hpp"
#include "base/time.hpp"
#include "base/trace.hpp"
#include "base/unix_socket.hpp"
#include "cgroup/delegation.hpp"
#include "container/observe.hpp"
#include "container/config.hpp"
#include "spec/validate.hpp"
#include "spec/settings.hpp"
#include "state/process_identity.hpp"

namespace husk::container {
namespace {

// Without root husk writes no cgroup it was not given (docs/rootless.md): its containers' cgroups go in the
// subtree delegated to the caller; with none, the container has no cgroup, and whatever needs one is refused,
// naming why.
struct CgroupChoice {
    cgroup::Manager manager = cgroup::Manager::cgroupfs;
    std::string delegated;
    std::optional<std::string> v2_mount{};  // when looked up already (without root): the cgroup2 mount, or ""
};

Result<CgroupChoice> choose_cgroup(const Runtime& runtime) {
    if (runtime.cgroup_manager == CgroupManager::disabled) return CgroupChoice{cgroup::Manager::disabled, {}};
    if (!runtime.rootless) return CgroupChoice{};
    auto mount = cgroup::find_v2_mount();
    if (!mount) return CgroupChoice{cgroup::Manager::undelegated, {}, std::string()};
    std::optional<std::string> delegated = TRY(cgroup::find_own_delegated_subtree(*mount));
    if (!delegated) return CgroupChoice{cgroup::Manager::undelegated, {}, *mount};
    return CgroupChoice{cgroup::Manager::cgroupfs, *delegated, *mount};
}

}  // namespace

Result<UniqueFd> connect_console_socket(const std::string& path) { return connect_unix(path, "console socket"); }

Result<void> write_pid_file(const std::string& path, pid_t pid) {
    if (path.empty()) return {};
    CallerFile target = TRY(open_caller_file(path, "--pid-file"));
    return write_file_atomic(target.dir.get(), target.name, std::to_string(pid), 0644);
}

Result<void> check_pid_file(const std::string& path) {
    if (!path.empty()) TRY(open_caller_file(path, "--pid-file"));
    return {};
}

void warn_ambient_dropped(const caps::CredentialsPlan& credentials, const std::function<void(const std::string&)>& warn) {
    if (!warn) return;
    for (const std::string& cap : credentials.ambient_dropped)
        warn("process.capabilities.ambient: " + cap + " not raised: it is not in both the permitted and the inheritable "
             "set (the process runs without it, as with runc)");
}

Launch::~Launch() {
    if (committed_) return;
    exec_fifo.reset();
    // Before the cgroup goes: what it used (setup only; nothing ran) is the run's charge.
    if (tenant) roll_back_tenant_start(root, *tenant, cgroup ? cgroup->location().where() : std::string());
    if (spawn_attempted && !bundle.config.spec.hooks.poststop.empty()) {
        (void)hooks::run_hooks(bundle.config.spec.hooks.poststop, oci_state_json(record, "stopped", 0), "poststop",
                               hooks::OnFailure::warn);
    }
    if (cgroup) (void)cgroup::remove_cgroup(*cgroup);
    if (dir) (void)dir->remove();
}

Result<std::unique_ptr<Launch>> prepare_launch(const Runtime& runtime, const ContainerId& id, const CreateOptions& options,
                                               PtyRelay relay, monitor::Framing framing) {
    TRY(check_preserved_fds(options.preserve_fds));  // first: before husk opens an fd of its own
    TRY(check_pid_file(options.pid_file));
    auto owned = std::make_unique<Launch>(TRY(load_bundle(id, options)));
    Launch& launch = *owned;
    trace::mark("config loaded");
    ContainerConfig& config = launch.bundle.config;
    const spec::Spec& spec = config.spec;
    const spec::HuskSettings& husk = config.husk;
    launch.root = runtime.root;
    // The caller is husk's parent: watched from before anything exists, so its death is never missed.
    if (husk.die_with_parent.value_or(false)) launch.caller = TRY(monitor::open_caller());
    // Before anything exists: an exhausted tenant leaves nothing behind. The ledger stays locked until the start
    // record is written below, so a parallel run of the tenant cannot decide on the same remainder. Its clamp is
    // the last change to the settings: from here on the effective config is what create stores.
    launch.tenant = TRY(admit_tenant(runtime.root, config.husk));
    const std::string stored_config = TRY(settle_config(launch.bundle));
    launch.policy = monitor::stop_policy(husk);
    // A pty has one output: the program's stdout and stderr arrive merged, and no line could say which was which.
    if (spec.process->terminal && framing)
        return fail_msg("process.terminal is true: --output-format json needs the program's stdout and stderr "
                        "apart, and a terminal merges them (set process.terminal to false, or use text)");
    if (spec.process->terminal && options.console_socket.empty()) {
        // A detached container has nobody in the foreground to relay its terminal to (runc refuses the same).
        if (relay == PtyRelay::refused)
            return fail_msg("process.terminal is true: --console-socket is required to receive the pty master "
                            "(only husk run in the foreground, without --detach, relays its own terminal)");
        launch.relay_terminal = true;
    }
    const CgroupChoice cgroup_choice = TRY(choose_cgroup(runtime));
    auto cgroup_plan = TRY(cgroup::prepare_cgroup(spec, husk, id.str(), cgroup_choice.manager, cgroup_choice.delegated));
    if (launch.tenant)
        TRY(place_tenant_cgroup(*launch.tenant, cgroup_plan, spec.linux ? spec.linux->cgroups_path : std::string(),
                                id.str()));
    if (!cgroup_plan.disabled()) config.cgroup = cgroup_plan.location;
    // Without a cgroup manager, husk still knows where the hierarchy is, if there is one.
    std::string cgroup2_mount = cgroup_plan.location.mount;
    if (cgroup2_mount.empty())
        cgroup2_mount = cgroup_choice.v2_mount ? *cgroup_choice.v2_mount : cgroup::find_v2_mount().value_or(std::string());
    launch.plan = TRY(process::prepare_container(
        spec, process::PlanOptions{launch.bundle.rootfs, launch.bundle.dir, options.no_pivot, options.preserve_fds,
                                   husk.seccomp_skip_unknown.value_or(false), husk.init.value_or(false),
                                   husk.root_tmpfs.value_or(false), cgroup2_mount, runtime.rootless,
                                   husk.address_space, options.seccomp_cache ? runtime.root : std::string()}));
    warn_ambient_dropped(launch.plan.credentials, options.warn);
    launch.buffers = std::make_unique<process::ChildBuffers>();
    trace::mark("plans prepared");
    if (!options.console_socket.empty()) launch.console_socket = TRY(connect_console_socket(options.console_socket));

    // The first record, written before anything it names exists: the cgroup path create is about to make and
    // the identity of this process. Whoever finds the state dir of a create that died half-way (SIGKILL at any
    // point) finds there what to kill and remove; the monitor adds itself and init the same way as they come.
    state::Record& r = launch.record;
    r.id = id.str();
    r.bundle = launch.bundle.dir;
    r.rootfs = launch.bundle.rootfs;
    r.created = now_rfc3339_nano();
    // The creating user's name as /etc/passwd has it (runc's OWNER column), its uid where it has none.
    const std::string owner = local_user(::geteuid()).name;
    r.owner = owner.empty() ? std::to_string(::geteuid()) : owner;
    r.annotations = spec.annotations;  // the effective config's, for the OCI state `husk state` prints
    r.boot_id = TRY(state::read_boot_id());
    r.creator_pid = ::getpid();
    r.creator_start_time = TRY(own_start_time());
    // The owner `husk gc` asks after; unknown (never collected) if it is gone already.
    if (auto caller = read_proc_stat(::getppid())) {
        r.caller_pid = ::getppid();
        r.caller_start_time = caller->start_time;
    }
    r.die_with_parent = husk.die_with_parent.value_or(false);
    if (config.cgroup) {
        r.cgroup_mount = config.cgroup->mount;
        r.cgroup_path = config.cgroup->path;
    }

    // Everything above only read and checked; from here on things exist and the destructor rolls them back.
    launch.dir.emplace(TRY(state::StateDir::create(runtime.root, id, &r)));
    trace::mark("state dir");
    TRY(write_file_atomic(launch.dir->fd(), state::StateDir::config, stored_config));
    remember_config(stored_config, config);
    // Present while every kill request is in state.json; `kill` unlinks it when it cannot record one (a full
    // state filesystem), which needs no space, and the monitor then does not claim who sent the signal.
    TRY(open_fd_at(launch.dir->fd(), state::StateDir::kills_recorded, O_RDONLY | O_CREAT | O_EXCL, 0600));
    if (::mkfifoat(launch.dir->fd(), state::StateDir::exec_fifo, 0600) != 0)
        return fail_sys(errno, "mkfifo", launch.dir->file(state::StateDir::exec_fifo));
    // O_RDWR never blocks on a fifo and keeps a reader alive, so `start` can write without waiting.
    launch.exec_fifo = TRY(open_fd_at(launch.dir->fd(), state::StateDir::exec_fifo, O_RDWR));
    if (!cgroup_plan.disabled()) launch.cgroup.emplace(TRY(cgroup::create_cgroup(cgroup_plan)));
    trace::mark("cgroup");
    if (auto checked = monitor::check_limits(launch.policy, launch.cgroup ? &*launch.cgroup : nullptr,
                                             cgroup::no_cgroup_reason(cgroup_choice.manager));
        !checked) {
        // A tenant's CPU ceiling gives every run a CPU budget: say where it came from (fail closed: a charge
        // that cannot be measured is not taken on trust).
        if (launch.tenant && launch.tenant->budgets.cpu_usec)
            return fail(checked.error().context("tenant \"" + launch.tenant->name + "\" has a CPU ceiling, so the run has a CPU budget"));
        return fail(checked.error());
    }
    launch.output = TRY(monitor::open_output_plumbing(launch.policy, std::move(framing)));
    // Last: once it is written, the run counts until its end record (the monitor's, delete's, or a replay's).
    if (launch.tenant)
        TRY(record_tenant_start(*launch.tenant, id.str() + "@" + r.created,
                                launch.cgroup ? launch.cgroup->location().where() : std::string()));
    return owned;
}

namespace {

// The create record with the calling process as the monitor.
Result<state::Record> with_this_monitor(const Launch& launch) {
    state::Record r = launch.record;
    r.monitor_pid = ::getpid();
    r.monitor_start_time = TRY(own_start_time());
    return r;
}

}  // namespace

namespace {

// The first number after "<key>:\t" in /proc/PID/status (the real id), as the host sees it.
std::optional<std::uint32_t> status_id(const std::string& status, std::string_view key) {
    auto at = status.find("\n" + std::string(key) + ":\t");
    if (at == std::string::npos) return std::nullopt;
    return static_cast<std::uint32_t>(std::strtoul(status.c_str() + at + key.size() + 3, nullptr, 10));
}

// /proc/PID/uid_map's lines ("inside outside count", space-aligned).
std::vector<state::IdMapLine> parse_id_map(const std::string& text) {
    std::vector<state::IdMapLine> lines;
    std::size_t at = 0;
    while (at < text.size()) {
        std::size_t end = text.find('\n', at);
        if (end == std::string::npos) end = text.size();
        unsigned long inside = 0, outside = 0, count = 0;
        if (std::sscanf(text.substr(at, end - at).c_str(), "%lu %lu %lu", &inside, &outside, &count) == 3)
            lines.push_back({static_cast<std::uint32_t>(inside), static_cast<std::uint32_t>(outside),
                             static_cast<std::uint32_t>(count)});
        at = end + 1;
    }
    return lines;
}

// Who init is to the host, observed once it is ready (not taken from the config): its real uid and gid,
// and whether it has a user namespace of its own (its uid_map is not the initial "0 0 4294967295"). What
// cannot be read is left out rather than guessed.
void observe_identity(pid_t pid, state::Security& sec) {
    auto dir = open_proc_pid(pid);
    if (!dir) return;
    if (auto status = read_file_at(dir->get(), "status")) {
        sec.host_uid = status_id("\n" + *status, "Uid");
        sec.host_gid = status_id("\n" + *status, "Gid");
    }
    if (auto map = read_file_at(dir->get(), "uid_map")) {
        unsigned long inside = 1, outside = 1, count = 0;
        int fields = std::sscanf(map->c_str(), "%lu %lu %lu", &inside, &outside, &count);
        bool initial = fields == 3 && inside == 0 && outside == 0 && count == 4294967295UL &&
                       map->find('\n') == map->size() - 1;
        sec.user_namespace = !initial;
        if (!initial) {
            sec.uid_map = parse_id_map(*map);
            if (auto gids = read_file_at(dir->get(), "gid_map")) sec.gid_map = parse_id_map(*gids);
        }
    }
}

}  // namespace

process::SpawnOptions spawn_options(Launch& launch, process::Parent parent) {
    process::SpawnOptions options;
    options.cgroup_fd = launch.cgroup ? launch.cgroup->dir_fd() : -1;
    options.parent = parent;
    options.console_socket = launch.console_socket.get();
    if (launch.relay_terminal) options.console_target = process::ConsoleTarget::spawner;
    options.exec_fifo = launch.exec_fifo.get();
    if (launch.output) {
        options.stdout_pipe = launch.output->pipes.stdout_write.get();
        options.stderr_pipe = launch.output->pipes.stderr_write.get();
    }
    options.oom_score_adj = launch.bundle.config.spec.process->oom_score_adj;
    // Only when init's parent is the process that watches the caller: under a subreaper (CLONE_PARENT) the
    // kernel would tie init to the subreaper's life instead.
    if (launch.record.die_with_parent && parent == process::Parent::spawner) options.parent_death_signal = SIGKILL;
    options.hooks = &launch.bundle.config.spec.hooks;
    options.close_in_child = {launch.dir->lock_fd(), launch.dir->fd()};
    if (launch.console_socket) options.close_in_child.push_back(launch.console_socket.get());
    const state::Record* record = &launch.record;
    options.hook_state = [record](std::string_view status, pid_t pid) { return oci_state_json(*record, status, pid); };
    // init waits for `go` until this returns: it is never alive without being named in the record.
    Launch* owner = &launch;
    options.on_cloned = [owner](pid_t init) -> Result<void> {
        state::Record r = TRY(with_this_monitor(*owner));
        r.pid = init;
        r.pid_start_time = TRY(read_proc_stat(init)).start_time;
        return owner->dir->write_record(r);
    };
    return options;
}

namespace {

// A second fd of the cgroup directory create made, for the monitor to hold (monitor/policy.hpp, held_cgroup).
std::shared_ptr<const UniqueFd> held_cgroup_of(const Launch& launch) {
    if (!launch.cgroup) return nullptr;
    return std::make_shared<const UniqueFd>(::fcntl(launch.cgroup->dir_fd(), F_DUPFD_CLOEXEC, 3));
}

}  // namespace

monitor::MonitorPlan monitor_plan(const Launch& launch) {
    const ContainerConfig& config = launch.bundle.config;
    const std::optional<cgroup::CgroupLocation>& cgroup = config.cgroup;
    return monitor::MonitorPlan{launch.root,
                                config.id,
                                launch.policy,
                                config.husk.tenant,
                                cgroup,
                                monitor::read_oom_kills(cgroup),
                                monitor::read_pids_max_hits(cgroup),
                                monitor::read_memory_max_hits(cgroup),
                                launch.cgroup ? launch.cgroup->net_maps() : nullptr,
                                held_cgroup_of(launch)};
}

Result<void> record_created(Launch& launch, pid_t pid, pid_t monitor, const std::string& pid_file,
                            const process::Posture& posture) {
    state::Record& r = launch.record;
    state::Security& sec = r.security.emplace();
    sec.seccomp = posture.seccomp_mode == 2 ? "filter" : "none";
    sec.seccomp_filters = std::max(posture.seccomp_filters, 0);
    if (launch.plan.confinement.seccomp) sec.seccomp_skipped = launch.plan.confinement.seccomp->skipped_syscalls;
    if (launch.plan.confinement.seccomp)
        for (const auto& r : launch.plan.confinement.seccomp->resolutions) sec.seccomp_resolved.push_back({r.syscall, r.kept, r.dropped});
    if (launch.bundle.config.spec.process->landlock) sec.landlock_abi = posture.landlock_abi;
    sec.landlock_dropped = launch.plan.confinement.landlock.dropped;
    sec.no_new_privileges = posture.no_new_privs == 1;
    sec.caps_effective = posture.cap_effective;
    sec.caps_bounding = posture.cap_bounding;
    observe_identity(pid, sec);
    r.pid = pid;
    r.pid_start_time = TRY(read_proc_stat(pid)).start_time;
    r.creator_pid = 0;  // committed: from now on the container is whole
    r.creator_start_time = 0;
    r.monitor_pid = monitor;
    if (monitor > 0)
        r.monitor_start_time = monitor == ::getpid() ? TRY(own_start_time()) : TRY(read_proc_stat(monitor)).start_time;
    TRY(launch.dir->write_record(r));
    TRY(write_pid_file(pid_file, pid));
    return {};
}

}  // namespace husk::container
