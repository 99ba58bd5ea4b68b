// Helpers for the VM tests: tests tagged [.vm] (hidden from the default run), which run inside the qemu
// guest of tests/vm/run-in-vm.sh, where cgroup v2 is mounted alone at /sys/fs/cgroup with every controller.
// They assert what the kernel reports in the container's cgroup files, not what husk wrote.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "harness.hpp"
#include "monitor_support.hpp"  // require_ok, wait_for_output, wait_for_exit

namespace husk::test::vm {

// REQUIREs a pure cgroup v2 hierarchy with the memory, pids, cpu, cpuset, io and hugetlb controllers (the
// VM); on the hybrid development host the test fails with a pointer to tests/vm/run-in-vm.sh.
void require_vm();

// The container's cgroup directory: the v2 mount followed by `state`'s husk.cgroupPath.
std::string cgroup_dir(Sandbox& sb, const std::string& id);

// A file's content without trailing whitespace ("" when it cannot be read).
std::string read_value(const std::string& path);

// The limit tests' two workloads, in the busybox rootfs: `/probe fork 1000` under pids.max 12 (husk-init, the
// probe and its children share it: 10 forks, then EAGAIN), checked by check_fork_loop_stopped; and a shell
// whose awk doubles a string to 128 MiB, which memory.max 16m ends (reason oom, 128 + SIGKILL).
inline const std::vector<std::string> fork_loop = {"/probe", "fork", "1000"};
inline const std::vector<std::string> memory_hog = {
    "/bin/sh", "-c", "awk 'BEGIN { s = \"x\"; for (i = 0; i < 27; i++) s = s s; print length(s) }'"};
// With a verdict, also that it says `exited` and carries the factor `pids-limit` (the fork pids.max refused), and
// for the hog the factor `memory-limit` (memory.max reached on the way to the OOM kill).
void check_fork_loop_stopped(const Output& forks, const std::string& verdict_path = "");
void check_ended_oom(const Output& hog, const std::string& verdict_path);

// The value of `key` in a flat-keyed file (memory.events, pids.events, cpu.stat, cgroup.events); -1 when
// the file or the key is missing.
long long keyed_value(const std::string& path, std::string_view key);

// Polls `done` every 20 ms until it holds or `timeout` passes; returns its last result.
bool wait_until(const std::function<bool()>& done, Ms timeout = Ms(10000));

// The JSON lines the probe printed so far.
std::vector<Json> json_lines(const std::string& text);

// Creates `name` in the bundle's rootfs (the workloads poll for such files: "/tmp/go").
void touch_in_rootfs(const Bundle& bundle, const std::string& name);

// `husk kill ID KILL`, wait for stopped, `husk delete ID`.
void kill_and_delete(Sandbox& sb, const std::string& id);

}  // namespace husk::test::vm
