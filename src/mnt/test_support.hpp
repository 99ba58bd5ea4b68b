// Test support for the [mnt] tests: temporary rootfs directories, and a forked "container" child in new
// namespaces that runs apply_* steps and reports what it sees over a pipe as "key=value" lines.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "husk/error.hpp"
#include "husk/spec.hpp"
#include "mnt/rootfs.hpp"

namespace husk::mnt::testing {

std::string host_mountinfo();

// A temporary directory, removed afterwards unless something is mounted below it in the host's namespace
// (which would be a bug; removing then could reach through a bind into the host).
struct TempDir {
    std::string path;
    explicit TempDir(const char* prefix);
    ~TempDir();
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    std::string operator/(const std::string& name) const { return path + "/" + name; }
};

void write_text(const std::string& path, const std::string& text);

using Report = std::map<std::string, std::string>;

// The child's side: "key=value" lines on the pipe.
struct Reporter {
    int fd;
    void put(const std::string& key, const std::string& value) const;
    // Runs one apply step; on failure reports "error=<step>: <message>" and exits with status 3.
    void step(const char* name, const Result<void>& result) const;
};

enum class UserNs { no, yes };

// fork -> [unshare(CLONE_NEWUSER), the parent writes an identity id map] -> unshare(mount, pid, ipc, uts,
// net) -> fork again so the body runs as pid 1 of the new pid namespace (proc needs that). The report has
// the body's lines plus "exit".
Report run_container(UserNs userns, const std::function<void(const Reporter&)>& body);

std::string describe(const char* path);   // "c 1:3 0666", "d 0755", "f 0644", "p 0620", "l", "missing ..."
std::string owner(const char* path);      // "uid:gid"
std::string try_write(const char* path);  // "ok" or the errno name of creating/opening it for writing
std::string link_of(const char* path);    // the symlink's target, or "none"
std::string fs_type(const char* path);    // "tmpfs", "proc", ...
std::string content_of(const char* path);
// Every mount as "mount:<point>" = "<fs type> <per-mount options> <optional fields>".
void report_mounts(const Reporter& out);

spec::Mount make_mount(std::string destination, std::string type, std::string source,
                       std::vector<std::string> options);
spec::Spec base_spec();                 // a mount and a pid namespace, nothing else
void add_default_mounts(spec::Spec& s);  // runc's /proc, /dev, /dev/pts, /dev/shm, /dev/mqueue, /sys
RootfsPlan prepare(const spec::Spec& s, const std::string& rootfs, RootfsOptions options = {});
// The child's steps (0)-(2) in a row: hold_rootfs, apply_mounts (with the trees cloned in prepare), apply_pivot.
Result<void> mount_and_pivot(const RootfsPlan& plan) noexcept;
// Steps (0) and (1) only.
Result<void> hold_and_mount(const RootfsPlan& plan) noexcept;
bool starts_with(const std::string& text, const std::string& prefix);

}  // namespace husk::mnt::testing
