// Sandbox: per-test temp dir, --root, bundles, husk invocations, and the cleanup guard.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <stdexcept>
#include <thread>

#include "harness.hpp"

namespace husk::test {
namespace {

Paths g_paths;

// `runc spec` (runc 1.1.5) with the changes every test wants: ociVersion 1.3.0, no terminal, the
// probe as the process, a writable root (tests that want it read-only say so) and no ambient set
// (runc's default asks for ambient caps without inheritable ones, which the kernel refuses).
constexpr std::string_view base_config_json = R"({
  "ociVersion": "1.3.0",
  "process": {
    "terminal": false,
    "user": {"uid": 0, "gid": 0},
    "args": ["/probe", "report"],
    "env": ["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "TERM=xterm"],
    "cwd": "/",
    "capabilities": {
      "bounding": ["CAP_AUDIT_WRITE", "CAP_KILL", "CAP_NET_BIND_SERVICE"],
      "effective": ["CAP_AUDIT_WRITE", "CAP_KILL", "CAP_NET_BIND_SERVICE"],
      "permitted": ["CAP_AUDIT_WRITE", "CAP_KILL", "CAP_NET_BIND_SERVICE"]
    },
    "rlimits": [{"type": "RLIMIT_NOFILE", "hard": 1024, "soft": 1024}],
    "noNewPrivileges": true
  },
  "root": {"path": "rootfs", "readonly": false},
  "hostname": "husk-test",
  "mounts": [
    {"destination": "/proc", "type": "proc", "source": "proc"},
    {"destination": "/dev", "type": "tmpfs", "source": "tmpfs",
     "options": ["nosuid", "strictatime", "mode=755", "size=65536k"]},
    {"destination": "/dev/pts", "type": "devpts", "source": "devpts",
     "options": ["nosuid", "noexec", "newinstance", "ptmxmode=0666", "mode=0620", "gid=5"]},
    {"destination": "/dev/shm", "type": "tmpfs", "source": "shm",
     "options": ["nosuid", "noexec", "nodev", "mode=1777", "size=65536k"]},
    {"destination": "/dev/mqueue", "type": "mqueue", "source": "mqueue", "options": ["nosuid", "noexec", "nodev"]},
    {"destination": "/sys", "type": "sysfs", "source": "sysfs", "options": ["nosuid", "noexec", "nodev", "ro"]},
    {"destination": "/sys/fs/cgroup", "type": "cgroup", "source": "cgroup",
     "options": ["nosuid", "noexec", "nodev", "relatime", "ro"]}
  ],
  "linux": {
    "resources": {"devices": [{"allow": false, "access": "rwm"}]},
    "namespaces": [{"type": "pid"}, {"type": "network"}, {"type": "ipc"}, {"type": "uts"}, {"type": "mount"}],
    "maskedPaths": ["/proc/acpi", "/proc/asound", "/proc/kcore", "/proc/keys", "/proc/latency_stats",
                    "/proc/timer_list", "/proc/timer_stats", "/proc/sched_debug", "/sys/firmware", "/proc/scsi"],
    "readonlyPaths": ["/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys", "/proc/sysrq-trigger"]
  }
})";

std::string env_or_empty(const char* name) {
    const char* value = std::getenv(name);
    return value ? value : "";
}

}  // namespace

const Paths& paths() { return g_paths; }

std::string load_paths_from_env() {
    g_paths.husk = env_or_empty("HUSK_BINARY");
    g_paths.probe = env_or_empty("HUSK_PROBE");
    g_paths.subreaper_caller = env_or_empty("HUSK_SUBREAPER_CALLER");
    g_paths.rootfs_script = env_or_empty("HUSK_TEST_ROOTFS_SCRIPT");
    std::string missing;
    if (access(g_paths.husk.c_str(), X_OK) != 0) missing += " HUSK_BINARY (the husk binary under test)";
    if (access(g_paths.probe.c_str(), R_OK) != 0) missing += " HUSK_PROBE (tests/probe)";
    if (access(g_paths.subreaper_caller.c_str(), X_OK) != 0)
        missing += " HUSK_SUBREAPER_CALLER (tests/subreaper-caller)";
    if (access(g_paths.rootfs_script.c_str(), R_OK) != 0) missing += " HUSK_TEST_ROOTFS_SCRIPT (bundles/build-rootfs.sh)";
    size_t slash = g_paths.rootfs_script.rfind('/');
    std::string bundles = slash == std::string::npos ? "." : g_paths.rootfs_script.substr(0, slash);
    g_paths.example_config = bundles + "/busybox/config.json";
    return missing.empty() ? "" : "set to existing paths:" + missing;
}

void Bundle::write() const { write_file(config_path(), config.dump(2) + "\n"); }

Sandbox::Sandbox() {
    char tmpl[] = "/tmp/husk-it.XXXXXX";
    if (!mkdtemp(tmpl)) throw std::runtime_error("mkdtemp failed");
    dir_ = tmpl;
    suffix_ = dir_.substr(dir_.size() - 6);
    marker_ = "HUSK_TEST_SANDBOX=" + dir_;
    // 0755 so a container root mapped to another uid (user namespace) can still reach its rootfs.
    chmod(dir_.c_str(), 0755);
    root_ = dir_ + "/root";
    mkdir(root_.c_str(), 0700);
    mkdir((dir_ + "/io").c_str(), 0755);
}

Sandbox::~Sandbox() { clean_up(); }

std::string Sandbox::id(std::string_view name) {
    std::string id = std::string(name) + "-" + suffix_;
    ids_.push_back(id);
    return id;
}

std::string Sandbox::exact_id(std::string id) {
    ids_.push_back(id);
    return id;
}

Bundle Sandbox::bundle(std::string_view name) {
    Bundle bundle{dir_ + "/" + std::string(name), base_config()};
    mkdir(bundle.dir.c_str(), 0755);
    Output built = command({"/bin/sh", paths().rootfs_script, "--probe", paths().probe, bundle.rootfs()});
    INFO("build-rootfs.sh: " << built.describe());
    REQUIRE(built.exit_code == 0);
    return bundle;
}

Json Sandbox::base_config() const {
    Json config = Json::parse(base_config_json);
    // Processes started inside the container carry the marker too, so leftovers() finds them.
    config["process"]["env"].push_back(marker_);
    return config;
}

std::string Sandbox::next_io_prefix(std::string_view label) {
    // The label only makes the files easier to find when a test fails: keep it a plain name.
    std::string name;
    for (char c : label.substr(0, 24)) name += std::isalnum(static_cast<unsigned char>(c)) || c == '-' ? c : '_';
    return dir_ + "/io/" + std::to_string(++io_counter_) + "-" + name;
}

std::vector<std::string> Sandbox::marked_env(const std::vector<std::string>& extra) const {
    std::vector<std::string> env = extra;
    env.push_back(marker_);
    return env;
}

Process Sandbox::spawn_husk(const std::vector<std::string>& args, SpawnOptions options) {
    std::vector<std::string> argv = {paths().husk, "--root", root_};
    argv.insert(argv.end(), args.begin(), args.end());
    return spawn_command(argv, std::move(options));
}

Output Sandbox::husk(const std::vector<std::string>& args, SpawnOptions options) {
    return spawn_husk(args, std::move(options)).wait();
}

Process Sandbox::spawn_command(const std::vector<std::string>& argv, SpawnOptions options) {
    options.env = marked_env(options.env);
    // husk calls are labelled by their verb: the first argument after --root that is not an option.
    std::string label = argv[0].substr(argv[0].rfind('/') + 1);
    if (argv[0] == paths().husk)
        for (size_t i = 3; i < argv.size(); ++i)
            if (!argv[i].empty() && argv[i][0] != '-') {
                label = argv[i];
                break;
            }
    return spawn(argv, options, next_io_prefix(label));
}

Output Sandbox::command(const std::vector<std::string>& argv, SpawnOptions options) {
    return spawn_command(argv, std::move(options)).wait();
}

Output Sandbox::run(const Bundle& bundle, const std::string& id, std::vector<std::string> flags, SpawnOptions options) {
    bundle.write();
    std::vector<std::string> args = {"run", "--bundle", bundle.dir};
    args.insert(args.end(), flags.begin(), flags.end());
    args.push_back(id);
    return husk(args, std::move(options));
}

Output Sandbox::create(const Bundle& bundle, const std::string& id, std::vector<std::string> flags,
                       SpawnOptions options) {
    bundle.write();
    std::vector<std::string> args = {"create", "--bundle", bundle.dir};
    args.insert(args.end(), flags.begin(), flags.end());
    args.push_back(id);
    return husk(args, std::move(options));
}

Json Sandbox::state(const std::string& id) {
    Output out = husk({"state", id});
    INFO("husk state " << id << ": " << out.describe());
    REQUIRE(out.exit_code == 0);
    return Json::parse(out.out);
}

Json Sandbox::wait_for_status(const std::string& id, std::string_view status, Ms timeout) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
        Json current = state(id);
        if (current["status"].str() == status || std::chrono::steady_clock::now() > deadline) return current;
        std::this_thread::sleep_for(Ms(20));
    }
}

Json Sandbox::run_probe(const Bundle& bundle, std::vector<std::string> flags, SpawnOptions options) {
    Output out = run(bundle, id("probe" + std::to_string(ids_.size())), std::move(flags), std::move(options));
    INFO("husk run: " << out.describe());
    REQUIRE(out.exit_code == 0);
    return last_json_line(out.out);
}

void check_nothing_left(const Sandbox& sb) {
    std::vector<std::string> left = sb.leftovers();
    INFO("left behind:\n" << join_lines(left));
    CHECK(left.empty());
}

void Sandbox::track_pid(pid_t pid) {
    if (pid > 0) tracked_.emplace_back(pid, proc_start_time(pid));
}

}  // namespace husk::test
