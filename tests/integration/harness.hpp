// The integration-test harness: run the husk binary under test (and other commands) with captured
// output and a timeout, build per-test bundles, and guarantee that each test cleans up after itself
// and leaves nothing behind on the host (state dirs, cgroups, mounts, processes).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include "json.hpp"

namespace husk::test {

using Ms = std::chrono::milliseconds;

// What is under test, taken from the environment by main(): HUSK_BINARY, HUSK_PROBE,
// HUSK_SUBREAPER_CALLER (tests/subreaper/caller.cpp), HUSK_TEST_ROOTFS_SCRIPT (bundles/build-rootfs.sh).
// The example bundle's config.json sits next to the script.
struct Paths {
    std::string husk, probe, subreaper_caller, rootfs_script, example_config;
};
const Paths& paths();
// Fills paths() from the environment; returns an error message, or "" when everything is there.
std::string load_paths_from_env();

struct SpawnOptions {
    std::string stdin_data;          // fed from a file; empty means /dev/null
    std::vector<int> extra_fds;      // placed at fds 3, 4, ... of the child, without O_CLOEXEC
    std::vector<std::string> env;    // NAME=value entries added to the test's own environment
    std::string cwd;                 // empty: the test's cwd
    // A pty slave (>= 0): the child's stdin, stdout and stderr and its controlling terminal (setsid +
    // TIOCSCTTY), as in a terminal emulator; stdin_data is not used then, and the output files stay empty.
    int terminal = -1;
    Ms timeout{30000};
};

// The outcome of one command. stdout/stderr go to files, not pipes: `create` hands its stdio to the
// container, whose output keeps arriving after the command has returned (see current_out()).
struct Output {
    int exit_code = -1;  // exit status; 128 + signal when killed by one; -1 when it timed out
    bool timed_out = false;
    std::string out, err;
    std::string out_path, err_path;
    Ms elapsed{0};

    std::string current_out() const;  // stdout as it is now, including a container's later output
    std::string describe() const;     // "exit 1 after 12 ms; stdout: ...; stderr: ..." for INFO()
};

// A command started with spawn(). wait() collects it; the destructor kills and reaps it if needed.
class Process {
public:
    Process(pid_t pid, int pidfd, std::string out_path, std::string err_path, Ms timeout);
    Process(Process&& other) noexcept;
    Process& operator=(Process&&) = delete;
    ~Process();
    pid_t pid() const { return pid_; }
    std::string current_out() const;  // stdout so far, while the command runs
    Output wait();

private:
    pid_t pid_;
    int pidfd_;
    std::string out_path_, err_path_;
    Ms timeout_;
    std::chrono::steady_clock::time_point started_;
};

// argv[0] is a path. Output files are io_prefix + ".out" / ".err".
Process spawn(const std::vector<std::string>& argv, const SpawnOptions& options, const std::string& io_prefix);

std::string read_file(const std::string& path);  // "" when it cannot be read
void write_file(const std::string& path, std::string_view content, unsigned mode = 0644);
std::vector<std::string> lines(const std::string& text);  // non-empty lines
Json last_json_line(const std::string& text);             // a probe's report; throws if there is none
std::string to_lower(std::string text);
std::string join_lines(const std::vector<std::string>& items);
unsigned long long proc_start_time(pid_t pid);            // field 22 of /proc/PID/stat, 0 if gone
pid_t proc_parent(pid_t pid);                             // field 4 of /proc/PID/stat, -1 if gone
bool process_alive(pid_t pid);                            // exists and is not a zombie
// Where the cgroup v2 hierarchy is mounted: /sys/fs/cgroup/unified on this hybrid host, /sys/fs/cgroup in
// the VM (tests/vm); "" when there is none. The first cgroup2 entry of /proc/self/mountinfo.
std::string cgroup2_mount();

// A bundle directory: rootfs/ built by the rootfs script (the probe at /probe) and config.json
// written from `config` by write().
struct Bundle {
    std::string dir;
    Json config;

    std::string rootfs() const { return dir + "/rootfs"; }
    std::string config_path() const { return dir + "/config.json"; }
    void write() const;
};

// Everything one test creates lives in one temporary directory and one --root. The destructor runs
// `delete --force` for every id handed out, kills leftover processes, removes the directory, and
// fails the test if anything was left behind.
class Sandbox {
public:
    Sandbox();
    ~Sandbox();
    Sandbox(const Sandbox&) = delete;
    Sandbox& operator=(const Sandbox&) = delete;

    const std::string& dir() const { return dir_; }
    const std::string& root() const { return root_; }
    // "HUSK_TEST_SANDBOX=<dir>": in the environment of every process this sandbox starts.
    const std::string& marker() const { return marker_; }
    // The container id for `name` in this sandbox ("name-<suffix>"), remembered for cleanup.
    std::string id(std::string_view name);
    // `id` exactly as given (it must hold the sandbox suffix somewhere, so leftovers() finds what it makes),
    // deleted at the end like id()'s.
    std::string exact_id(std::string id);
    // A new bundle with a fresh rootfs and the base config (see base_config()).
    Bundle bundle(std::string_view name = "bundle");
    // A runc-style config (runc spec defaults) with terminal false, args ["/probe", "report"].
    Json base_config() const;

    // `husk --root ROOT args...`, with the sandbox marker in its environment.
    Output husk(const std::vector<std::string>& args, SpawnOptions options = {});
    Process spawn_husk(const std::vector<std::string>& args, SpawnOptions options = {});
    // Any other command (argv[0] a path), also marked as this sandbox's.
    Output command(const std::vector<std::string>& argv, SpawnOptions options = {});
    Process spawn_command(const std::vector<std::string>& argv, SpawnOptions options = {});

    // Write the bundle's config, then `run|create --bundle DIR flags... ID`.
    Output run(const Bundle& bundle, const std::string& id, std::vector<std::string> flags = {},
               SpawnOptions options = {});
    Output create(const Bundle& bundle, const std::string& id, std::vector<std::string> flags = {},
                  SpawnOptions options = {});
    // `state ID`, which must succeed; polling until the status is `status`.
    Json state(const std::string& id);
    Json wait_for_status(const std::string& id, std::string_view status, Ms timeout = Ms(10000));

    // Runs the bundle in the foreground (a fresh id) and returns the probe's JSON line; the run must
    // exit 0.
    Json run_probe(const Bundle& bundle, std::vector<std::string> flags = {}, SpawnOptions options = {});

    // Processes of this sandbox still alive, state dirs under --root, cgroups and mounts that name
    // the sandbox: each as one readable line. Waits up to a second for exiting processes.
    std::vector<std::string> leftovers() const;
    // A pid to kill (and report) at the end if it is still alive.
    void track_pid(pid_t pid);

private:
    std::string next_io_prefix(std::string_view label);
    std::vector<std::string> marked_env(const std::vector<std::string>& extra) const;
    std::vector<pid_t> own_processes() const;
    void clean_up() noexcept;

    std::string dir_, root_, suffix_, marker_;
    std::vector<std::string> ids_;
    std::vector<std::pair<pid_t, unsigned long long>> tracked_;
    int io_counter_ = 0;
};

// CHECKs that sb.leftovers() is empty, listing what was found.
void check_nothing_left(const Sandbox& sb);

}  // namespace husk::test
