#include "cli/cli.hpp"

namespace husk::cli {

int verb_create(const Globals&, const Args&);
int verb_start(const Globals&, const Args&);
int verb_run(const Globals&, const Args&);
int verb_sandbox(const Globals&, const Args&);
int verb_exec(const Globals&, const Args&);
int verb_state(const Globals&, const Args&);
int verb_kill(const Globals&, const Args&);
int verb_delete(const Globals&, const Args&);
int verb_list(const Globals&, const Args&);
int verb_pause(const Globals&, const Args&);
int verb_resume(const Globals&, const Args&);
int verb_ps(const Globals&, const Args&);
int verb_events(const Globals&, const Args&);
int verb_update(const Globals&, const Args&);
int verb_spec(const Globals&, const Args&);
int verb_features(const Globals&, const Args&);
int verb_gc(const Globals&, const Args&);
int verb_seccomp_profile(const Globals&, const Args&);
int verb_tenant(const Globals&, const Args&);

const std::vector<Verb>& verbs() {
    static const std::vector<Verb> table = {
        {"create", "create a container from a bundle; it waits for start", verb_create},
        {"start", "start the workload of a created container", verb_start},
        {"run", "create and start a container, and wait for it unless --detach", verb_run},
        {"sandbox", "run a program confined and limited, without a bundle, and delete it (husk(8) SANDBOX)",
         verb_sandbox},
        {"exec", "run a new process in a running container (runc's flags)", verb_exec},
        {"state", "print the OCI state of a container as JSON", verb_state},
        {"kill", "send a signal to the container's init (or all its processes)", verb_kill},
        {"delete", "delete a stopped container (--force: any container)", verb_delete},
        {"pause", "freeze every process of the container (cgroup.freeze)", verb_pause},
        {"resume", "thaw a paused container", verb_resume},
        {"ps", "list the host pids of the container's processes", verb_ps},
        {"update", "change the cgroup limits of a running container (runc's flags or --resources JSON)", verb_update},
        {"events", "print the container's cgroup stats and OOM events as JSON lines (runc's format)", verb_events},
        {"list", "list containers", verb_list},
        {"gc", "delete the stopped containers whose owner (the caller of create/run) and monitor are gone", verb_gc},
        {"tenant", "set, show, reset or compact a tenant's ceilings and ledger (--tenant; docs/tenants.md)", verb_tenant},
        {"spec", "write a default config.json", verb_spec},
        {"features", "print the runtime-spec features document", verb_features},
        {"seccomp-profile", "print the seccomp profile husk ships for untrusted code (linux.seccomp JSON)",
         verb_seccomp_profile},
    };
    return table;
}

}  // namespace husk::cli
