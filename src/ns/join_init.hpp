// Joining a running container's namespaces (`husk exec`): which of init's namespaces differ from ours, the
// pid and time namespaces to enter for children (the spawner), and the rest for the child's one setns(2)
// through init's pidfd. runc's setns process does the same through /proc/<pid>/ns.
#pragma once

#include <sys/types.h>

#include "husk/error.hpp"
#include "husk/unique_fd.hpp"
#include "ns/namespaces.hpp"

namespace husk::ns {

struct InitNamespaces {
    // CLONE_NEW{USER,NS,NET,IPC,UTS,CGROUP} for setns(init_pidfd, flags) in the child: only those init has
    // that are not ours (setns into our own user namespace is EINVAL, and joining our own others is a no-op).
    int setns_flags = 0;
    // join_pid / join_time set when init's differ from ours: ForChildren enters them around clone3.
    NamespacePlan for_children;
    // Without root: init's user namespace, which the spawner itself joins for good before the pid namespace
    // (only a process holding CAP_SYS_ADMIN in the pid namespace's owner, a member of it, may enter that);
    // CLONE_NEWUSER is then not in setns_flags (docs/rootless.md).
    UniqueFd spawner_user;
};

// The caller holds a pidfd of init that it has verified (pid + start time + boot id) and checks again that
// init is alive after this returns: the /proc/<pid>/ns files opened here then belong to that same process.
Result<InitNamespaces> open_init_namespaces(pid_t init, bool rootless);

// Spawner side, without root: joins spawner_user (a no-op without one).
Result<void> join_init_user_namespace(const InitNamespaces& namespaces);

// Child side: init's namespaces that differ from ours, all at once through its pidfd (setns(2) enters the user
// namespace first). Nothing when none differ.
Result<void> apply_init_namespaces(const InitNamespaces& namespaces, int init_pidfd) noexcept;

}  // namespace husk::ns
