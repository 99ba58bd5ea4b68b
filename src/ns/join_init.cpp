#include "ns/join_init.hpp"

#include <fcntl.h>
#include <sched.h>
#include <sys/stat.h>

#include <cerrno>
#include <string>

#include "base/fs.hpp"
#include "base/procfs.hpp"

namespace husk::ns {
namespace {

struct Entry {
    const char* file;  // under /proc/<pid>/ns
    int flag;
};
// The order does not matter: setns(pidfd, flags) enters them all at once, user namespace first.
constexpr Entry joined_by_child[] = {
    {"user", CLONE_NEWUSER}, {"mnt", CLONE_NEWNS},  {"net", CLONE_NEWNET},
    {"ipc", CLONE_NEWIPC},   {"uts", CLONE_NEWUTS}, {"cgroup", CLONE_NEWCGROUP},
};

// init's namespace file of this kind, or nothing when it is ours (same device and inode, namespaces(7)).
Result<UniqueFd> differing(int init_ns_dir, const char* file, const char* own) {
    UniqueFd fd = TRY(open_fd_at(init_ns_dir, file, O_RDONLY));
    struct stat theirs {}, ours {};
    if (::fstat(fd.get(), &theirs) != 0) return fail_sys(errno, "fstat", std::string("init's ") + file + " namespace");
    if (::stat(own, &ours) != 0) return fail_sys(errno, "stat", own);
    if (theirs.st_dev == ours.st_dev && theirs.st_ino == ours.st_ino) return UniqueFd{};
    return fd;
}

}  // namespace

Result<InitNamespaces> open_init_namespaces(pid_t init, bool rootless) {
    UniqueFd proc = TRY(open_proc_pid(init));
    UniqueFd dir = TRY(open_fd_at(proc.get(), "ns", O_RDONLY | O_DIRECTORY));
    InitNamespaces out;
    for (const Entry& entry : joined_by_child) {
        std::string own = std::string("/proc/self/ns/") + entry.file;
        UniqueFd theirs = TRY(differing(dir.get(), entry.file, own.c_str()));
        if (!theirs) continue;
        if (rootless && entry.flag == CLONE_NEWUSER) out.spawner_user = std::move(theirs);
        else out.setns_flags |= entry.flag;
    }
    // Our *_for_children: a previous enter would already have moved them, but nobody did.
    out.for_children.join_pid = TRY(differing(dir.get(), "pid", "/proc/self/ns/pid_for_children"));
    out.for_children.join_time = TRY(differing(dir.get(), "time", "/proc/self/ns/time_for_children"));
    return out;
}

Result<void> join_init_user_namespace(const InitNamespaces& namespaces) {
    if (namespaces.spawner_user && ::setns(namespaces.spawner_user.get(), CLONE_NEWUSER) != 0)
        return fail_sys(errno, "setns", "container init's user namespace");
    return {};
}

Result<void> apply_init_namespaces(const InitNamespaces& namespaces, int init_pidfd) noexcept {
    if (namespaces.setns_flags != 0 && ::setns(init_pidfd, namespaces.setns_flags) != 0)
        return fail_sys(errno, "setns", "container init");
    return {};
}

}  // namespace husk::ns
