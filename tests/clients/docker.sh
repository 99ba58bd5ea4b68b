#!/bin/sh
# Docker 20.10 (Debian's docker.io: dockerd, which starts its own containerd and runs each container
# through containerd-shim-runc-v2) driving runc and husk, row by row; runs inside the VM (pure cgroup v2),
# from the meson test vm-clients-docker:
#   tests/clients/in-vm.sh docker.sh --client docker --client dockerd --client containerd \
#       --client containerd-shim-runc-v2 --client runc --client docker-init --client apparmor_parser \
#       --client script [--build DIR] [--memory MB]
# dockerd keeps its data under /tmp/docker (vfs storage), has no bridge and no iptables, and every
# container runs with --network none: nothing touches networking. husk is the runtime "husk" of
# daemon.json's runtimes table; `docker run --runtime husk` or `--runtime runc` picks it per container.
# Each row asserts what can be observed: output, exit code, `docker inspect`, the runtime's own state and
# the container's cgroup files, /sys/fs/cgroup/docker/<ID>. Rows that look at one container from several
# sides share it (the confined container below), since under TCG each `docker run` costs seconds.
# What dockerd and its containerd send a runtime: docs/clients.md, "Docker".
# The rows' functions are called through `row`, which shellcheck cannot follow; the single-quoted
# scripts run inside the containers (their $ expands there); `set -- $(field ...)` splits inspect's fields.
# shellcheck disable=SC2317,SC2016,SC2046
set -u
# shellcheck source=tests/clients/lib.sh
. ./lib.sh

D=/tmp/docker
image=localhost/busybox:latest
cgroup=/sys/fs/cgroup/docker
# Docker hands every runtime of its runtimes table runc's state root (its exec-root's runtime-runc) with
# containerd's namespace appended: husk's state lives beside runc's.
state_root=/var/run/docker/runtime-runc/moby
export DOCKER_HOST=unix://$D/docker.sock DOCKER_CONFIG=$D/cli

mkdir -p "$D/cli"
cat > "$D/daemon.json" <<EOF
{
    "data-root": "$D/root",
    "pidfile": "$D/dockerd.pid",
    "hosts": ["unix://$D/docker.sock"],
    "storage-driver": "vfs",
    "bridge": "none",
    "iptables": false,
    "ip-forward": false,
    "ip-masq": false,
    "userland-proxy": false,
    "exec-opts": ["native.cgroupdriver=cgroupfs"],
    "runtimes": { "husk": { "path": "/usr/local/bin/husk" } }
}
EOF

# Every client call is bounded: a hang fails its row instead of eating the harness's timeout.
docker() { timeout 120 /usr/local/bin/docker "$@"; }

# The guest's kernel has AppArmor on (Debian's default; init2 mounts securityfs), as on a Debian or Ubuntu
# host: dockerd then loads its docker-default profile with apparmor_parser (staged from the host's apparmor
# package) and puts "apparmorProfile": "docker-default" into every config.json and exec process it hands the
# runtime. Without apparmor_parser dockerd refuses to create any container. apparmor_parser warns on its
# first line when it has no config file, and dockerd takes its version from that line: an empty one will do.
mkdir -p /etc/apparmor
: > /etc/apparmor/parser.conf
# dockerd (and the containerd it starts) in a cgroup of its own, as a service manager would put it: Docker
# learns from its own cgroup's files which limits the host has (without memory.swap.max there it drops
# every swap limit, "Memory limited without swap").
mkdir -p /sys/fs/cgroup/docker.service
(echo 0 > /sys/fs/cgroup/docker.service/cgroup.procs && exec dockerd --config-file "$D/daemon.json") > "$D/dockerd.log" 2>&1 &
dockerd_pid=$!
i=0
until docker version > /dev/null 2>&1; do
    i=$((i + 1))
    if [ $i -gt 120 ] || [ ! -e /proc/$dockerd_pid ]; then
        echo "dockerd did not answer in 60 s:"
        tail -n 30 "$D/dockerd.log"
        exit 1
    fi
    sleep 0.5
done
watch_memory
docker load -q -i busybox.tar > /dev/null || { echo "docker load failed"; tail -n 30 "$D/dockerd.log"; exit 1; }

# ---------------------------------------------------------------------------- helpers
dk() { docker "$@"; }
drun() { docker run --runtime "$rt" --network none "$@"; }
# One `docker inspect` per question (each docker call starts a Go binary: most of a second under TCG).
field() { docker inspect -f "$1" "$2"; }
# script(1) gives docker -it a terminal; the pty adds a CR to each line.
in_pty() { timeout 120 script -qec "$*" /dev/null | tr -d '\r'; }
wait_for() { # WHAT SECONDS COMMAND...: polls COMMAND every half second
    what=$1 tries=$(($2 * 2))
    shift 2
    until "$@"; do
        tries=$((tries - 1))
        [ "$tries" -gt 0 ] || { echo "$what: not within the time"; return 1; }
        sleep 0.5
    done
}
expect_in_cgroup() { # PID CGROUP_DIR
    grep -qx "$1" "$2/cgroup.procs" || { echo "pid $1 not in $2/cgroup.procs"; return 1; }
}
# The long-lived container's id, init's pid and cgroup, from one inspect: sets id, pid, dir.
long_facts() {
    set -- $(field '{{.Id}} {{.State.Pid}} {{.State.Status}}' "c-$rt")
    id=${1:-} pid=${2:-} status=${3:-} dir=$cgroup/${1:-}
}
# The runtime itself, at the state root Docker gave it.
runtime_state() { "/usr/local/bin/$rt" --root "$state_root" state "$1"; }
saved() { cat "$D/$1-$rt"; }

# ---------------------------------------------------------------------------- rows
# Docker's defaults: no_new_privs off, its seccomp profile and AppArmor's docker-default on. The output
# is kept for the seccomp row.
run_rm() {
    drun --rm "$image" sh -c 'echo hello; grep -E "^(NoNewPrivs|Seccomp):" /proc/self/status
        cat /proc/self/attr/current; unshare -U true 2>&1; echo "unshare: $?"; exit 3' > "$D/run-$rt" 2>&1
    status=$?
    out=$(saved run)
    expect_eq "exit code" 3 "$status" || { echo "$out"; return 1; }
    expect_eq output "hello
NoNewPrivs:	0
Seccomp:	2
docker-default (enforce)" "$(echo "$out" | head -4)"
}
# Docker's default profile allows unshare(2) only with CAP_SYS_ADMIN, which its default set lacks.
seccomp_default() {
    out=$(saved run)
    expect_contains "unshare -U" "unshare: 1" "$out" && expect_contains "unshare's error" "Operation not permitted" "$out"
}
# dockerd maps the runtime's error words to the CLI's exit code: "no such file or directory" or
# "executable file not found" to 127, "permission denied" to 126.
nonexistent() {
    out=$(drun --rm "$image" /nonexistent 2>&1)
    expect_eq "exit code" 127 "$?" || { echo "$out"; return 1; }
    expect_contains message '/nonexistent: no such file or directory' "$out"
}
not_executable() {
    out=$(drun --rm "$image" /etc/passwd 2>&1)
    expect_eq "exit code" 126 "$?" || { echo "$out"; return 1; }
    expect_contains message 'permission denied' "$out"
}

# The long-lived container: a shell that exits 7 on SIGTERM, so the exit code says which signal ended it;
# with limits (checked by the next row, changed by `update`), and an ipc namespace others may join.
long='trap "exit 7" TERM; echo ready; sleep 1000 & wait'
run_d() {
    drun -d --name "c-$rt" --ipc shareable --memory 64m --pids-limit 50 --cpus 0.5 "$image" sh -c "$long" > /dev/null ||
        return 1
    long_facts
    expect_eq status running "$status" || return 1
    expect_in_cgroup "$pid" "$dir" || return 1
    st=$(runtime_state "$id") || { echo "$rt --root $state_root state: $st"; return 1; }
    expect_contains "$rt state" '"running"' "$st"
}
logs() {
    wait_for "ready in docker logs" 10 sh -c "docker logs c-$rt | grep -qx ready"
}
# dockerd puts the container's AppArmor profile into the exec's process.json too.
exec_plain() {
    out=$(dk exec "c-$rt" sh -c 'echo in-exec; cat /proc/1/comm /proc/self/attr/current') || { echo "docker exec: $out"; return 1; }
    expect_eq output "in-exec
sh
docker-default (enforce)" "$out" || return 1
    dk exec "c-$rt" sh -c 'exit 5'
    expect_eq "exit code" 5 "$?"
}
exec_tty() {
    out=$(in_pty "docker exec -it c-$rt sh -c 'tty; echo exec-tty'")
    expect_contains output /dev/pts/ "$out" && expect_contains output exec-tty "$out"
}
exec_user() {
    out=$(dk exec --user 65534:65534 "c-$rt" id) || { echo "$out"; return 1; }
    expect_contains id "uid=65534(nobody) gid=65534(nogroup)" "$out"
}
top_() {
    out=$(dk top "c-$rt") || { echo "docker top: $out"; return 1; }
    expect_contains "docker top" "sleep 1000" "$out"
}
stats() {
    long_facts
    out=$(dk stats --no-stream --format '{{.PIDs}} {{.MemUsage}}' "c-$rt") || { echo "docker stats: $out"; return 1; }
    expect_eq "stats PIDs (= pids.current)" "$(cat "$dir/pids.current")" "${out%% *}" || return 1
    case $out in *" 0B / "*) echo "no memory usage: $out"; return 1 ;; esac
}
pause() {
    dk pause "c-$rt" > /dev/null || return 1
    long_facts
    expect_eq status paused "$status" || return 1
    expect_contains cgroup.events "frozen 1" "$(cat "$dir/cgroup.events")"
}
unpause() {
    dk unpause "c-$rt" > /dev/null || return 1
    long_facts
    expect_eq status running "$status" || return 1
    expect_contains cgroup.events "frozen 0" "$(cat "$dir/cgroup.events")"
}
cp_in_out() {
    echo "copied in by $rt" > "$D/cp-in"
    dk cp "$D/cp-in" "c-$rt:/tmp/cp-in" || return 1
    out=$(dk exec "c-$rt" sh -c 'cat /tmp/cp-in; echo made inside > /tmp/cp-out') || return 1
    expect_eq "the file copied in" "copied in by $rt" "$out" || return 1
    rm -f "$D/cp-out"
    dk cp "c-$rt:/tmp/cp-out" "$D/cp-out" || return 1
    expect_eq "the file copied out" "made inside" "$(cat "$D/cp-out")"
}
# Namespaces of another container: its ipc ("shareable") and pid namespaces, joined by path. When the
# joining container ends, the shim kills what is left of it with `kill --all` (it shares a pid namespace).
kill_all_errors() { grep -c "failed to kill init's children" "$D/dockerd.log"; }
share_namespaces() {
    long_facts
    errors=$(kill_all_errors)
    out=$(drun --rm --ipc "container:c-$rt" --pid "container:c-$rt" "$image" \
        sh -c 'readlink /proc/self/ns/ipc; readlink /proc/self/ns/pid; ps -o args | grep -c "^sleep 1000"') ||
        { echo "$out"; return 1; }
    expect_eq "ipc, pid namespaces and the other container's sleep" "$(readlink "/proc/$pid/ns/ipc")
$(readlink "/proc/$pid/ns/pid")
1" "$out" || return 1
    expect_eq "dockerd's log: \"failed to kill init's children\"" "$errors" "$(kill_all_errors)"
}
stop() {
    long_facts
    dk stop -t 2 "c-$rt" > /dev/null || return 1
    set -- $(field '{{.State.Status}} {{.State.ExitCode}}' "c-$rt")
    expect_eq "status, exit code (7: SIGTERM came first)" "exited 7" "$*" || return 1
    [ ! -e "$dir" ] || { echo "$dir still exists"; return 1; }
    [ ! -e "$state_root/$id" ] || { echo "$state_root/$id still exists"; return 1; }
}
start() {
    dk start "c-$rt" > /dev/null || return 1
    long_facts
    expect_eq status running "$status" || return 1
    expect_in_cgroup "$pid" "$dir"
}
rm_f() {
    long_facts
    dk rm -f "c-$rt" > /dev/null || return 1
    if dk inspect "c-$rt" > /dev/null 2>&1; then echo "c-$rt still exists"; return 1; fi
    [ ! -e "$dir" ] || { echo "$dir still exists"; return 1; }
    [ ! -e "/proc/$pid" ] || { echo "init (pid $pid) still runs"; return 1; }
    [ ! -e "$state_root/$id" ] || { echo "$state_root/$id still exists"; return 1; }
}

limits() {
    long_facts
    # Docker asks for swap = 2 x the limit when --memory-swap is not given; cgroup v2 counts swap apart.
    expect_eq memory.max 67108864 "$(cat "$dir/memory.max")" &&
        expect_eq memory.swap.max 67108864 "$(cat "$dir/memory.swap.max")" &&
        expect_eq pids.max 50 "$(cat "$dir/pids.max")" &&
        expect_eq cpu.max "50000 100000" "$(cat "$dir/cpu.max")"
}
# Docker always sends "kernel": 0 (and kernelTCP 0) in update's resources, which means unset.
update() {
    dk update --memory 128m --memory-swap 256m --pids-limit 60 --cpus 1 "c-$rt" > /dev/null || return 1
    long_facts
    expect_eq memory.max 134217728 "$(cat "$dir/memory.max")" &&
        expect_eq memory.swap.max 134217728 "$(cat "$dir/memory.swap.max")" &&
        expect_eq pids.max 60 "$(cat "$dir/pids.max")" && expect_eq cpu.max "100000 100000" "$(cat "$dir/cpu.max")"
}
# dd's 64 MiB buffer, filled by read(), against a 32 MiB limit without swap.
oom() {
    drun --name "o-$rt" --memory 32m --memory-swap 32m "$image" dd if=/dev/zero of=/dev/null bs=64M count=1 > /dev/null 2>&1
    status=$?
    # The daemon sets OOMKilled from containerd's OOM event, which runc's shim sends from another goroutine than
    # the exit that `docker run` returned on: it may come after it, on a loaded host up to a few seconds later.
    tries=0
    while facts=$(field '{{.State.OOMKilled}} {{.State.ExitCode}}' "o-$rt") && [ "$facts" != "true 137" ] &&
        [ "$tries" -lt 50 ]; do
        tries=$((tries + 1))
        sleep 0.1
    done
    dk rm "o-$rt" > /dev/null || return 1
    expect_eq "docker run's exit code" 137 "$status" && expect_eq "OOMKilled, ExitCode" "true 137" "$facts"
}

# The confined container, one run looked at by the next five rows: Docker's init as pid 1, a read-only
# root with a tmpfs, no capabilities at all, no_new_privs, and a user of its own.
confined() {
    drun --rm --init --read-only --tmpfs /scratch:size=1m,mode=1777 --cap-drop ALL \
        --security-opt no-new-privileges --user 65534:65534 "$image" sh -c 'cat /proc/1/comm; echo "sh is pid $$"
            touch /x 2>&1; echo "touch: $?"; grep " /scratch " /proc/mounts; stat -c "mode %a" /scratch
            echo data > /scratch/f && cat /scratch/f; grep -E "^(Cap(Prm|Eff|Bnd)|NoNewPrivs):" /proc/self/status; id' \
        > "$D/confined-$rt" 2>&1
    expect_eq "exit code" 0 "$?" || { saved confined; return 1; }
}
init_flag() {
    out=$(saved confined)
    expect_eq "pid 1" docker-init "$(echo "$out" | head -1)" || return 1
    case $out in *"sh is pid 1"*) echo "the command is pid 1: $out"; return 1 ;; esac
}
read_only_tmpfs() {
    out=$(saved confined)
    expect_contains "touch /x" "Read-only file system" "$out" && expect_contains "touch's status" "touch: 1" "$out" &&
        expect_contains "/scratch's mount" "tmpfs /scratch tmpfs rw,nosuid,nodev,noexec" "$out" &&
        expect_contains "/scratch's size" "size=1024k" "$out" && expect_contains "/scratch's mode" "mode 1777" "$out" &&
        expect_contains "a file on /scratch" data "$out"
}
cap_drop() {
    expect_contains "capability sets" "CapPrm:	0000000000000000
CapEff:	0000000000000000
CapBnd:	0000000000000000" "$(saved confined)"
}
no_new_privileges() {
    expect_contains "NoNewPrivs" "NoNewPrivs:	1" "$(saved confined)"
}
user() {
    expect_contains id "uid=65534(nobody) gid=65534(nogroup)" "$(saved confined)"
}

restart_on_failure() {
    drun -d --name "r-$rt" --restart on-failure:1 "$image" sh -c 'echo attempt; exit 3' > /dev/null || return 1
    wait_for "one restart, then exited" 60 sh -c \
        "[ \"\$(docker inspect -f '{{.RestartCount}} {{.State.Status}}' r-$rt)\" = '1 exited' ]" || {
        field '{{.RestartCount}} {{.State.Status}}' "r-$rt"; return 1; }
    code=$(field '{{.State.ExitCode}}' "r-$rt") attempts=$(dk logs "r-$rt" | grep -c attempt)
    dk rm "r-$rt" > /dev/null || return 1
    expect_eq "exit code" 3 "$code" && expect_eq "runs in docker logs" 2 "$attempts"
}
# dockerd runs the check with exec in the container: healthy while /tmp/healthy exists, then not.
healthcheck() {
    drun -d --name "h-$rt" --health-cmd 'test -e /tmp/healthy' --health-interval 1s --health-retries 1 \
        "$image" sh -c 'touch /tmp/healthy; sleep 1000' > /dev/null || return 1
    wait_for healthy 60 sh -c "[ \"\$(docker inspect -f '{{.State.Health.Status}}' h-$rt)\" = healthy ]" || return 1
    dk exec "h-$rt" rm /tmp/healthy || return 1
    wait_for unhealthy 60 sh -c "[ \"\$(docker inspect -f '{{.State.Health.Status}}' h-$rt)\" = unhealthy ]" || return 1
    dk rm -f "h-$rt" > /dev/null
}
# Whatever a runtime leaves behind: containers, cgroups, shim or runtime processes, state, mounts.
nothing_left() {
    left=$(docker ps -aq; ls -d "$cgroup"/*/ 2>/dev/null; grep -E " ($D/root|/var/run/docker)/" /proc/mounts
        [ ! -d "$state_root" ] || find "$state_root" -mindepth 1 -maxdepth 1
        processes_matching '/usr/local/bin/containerd-shim*' '/usr/local/bin/husk*' '/usr/local/bin/runc*' \
            '/sbin/docker-init*' 'sleep 1000*')
    [ -z "$left" ] || { echo "left behind: $left"; return 1; }
}

for rt in runc husk; do
    row "run --rm: output, exit code, AppArmor's docker-default" $rt run_rm
    row "default seccomp profile: unshare refused" $rt seccomp_default
    row "/nonexistent: exit code 127" $rt nonexistent
    row "not executable: exit code 126" $rt not_executable
    row "run -d: running, in its cgroup, the runtime's state" $rt run_d
    row "--memory --pids-limit --cpus: cgroup files" $rt limits
    row "logs" $rt logs
    row "exec: output, exit code, AppArmor profile" $rt exec_plain
    row "exec -it" $rt exec_tty
    row "exec --user 65534:65534" $rt exec_user
    row "top" $rt top_
    row "stats --no-stream" $rt stats
    row "pause" $rt pause
    row "unpause" $rt unpause
    row "cp in and out" $rt cp_in_out
    row "update (kernel 0): cgroup files" $rt update
    row "--ipc container:X --pid container:X" $rt share_namespaces
    row "stop -t 2: SIGTERM, exit code, cgroup and state gone" $rt stop
    row "start" $rt start
    row "rm -f" $rt rm_f
    row "--memory: OOMKilled" $rt oom
    row "confined run (--init --read-only --tmpfs --cap-drop ALL --security-opt no-new-privileges --user)" $rt confined
    row "--init: docker-init is pid 1" $rt init_flag
    row "--read-only, --tmpfs" $rt read_only_tmpfs
    row "--cap-drop ALL" $rt cap_drop
    row "--security-opt no-new-privileges" $rt no_new_privileges
    row "--user 65534:65534" $rt user
    row "--restart on-failure:1" $rt restart_on_failure
    row "HEALTHCHECK (--health-cmd)" $rt healthcheck
    row "nothing left behind" $rt nothing_left
done

status=0
report || status=1
kill "$dockerd_pid"
i=0
while [ -e /proc/$dockerd_pid ]; do
    i=$((i + 1))
    [ $i -lt 60 ] || { echo "dockerd did not stop in 30 s"; status=1; break; }
    sleep 0.5
done
exit "$status"
