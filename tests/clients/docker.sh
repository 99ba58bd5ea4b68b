#!/bin/sh
# Docker 20.10 (Debian's docker.io: dockerd, which starts its own containerd and runs each container
# through containerd-shim-runc-v2) driving runc and husk, row by row; runs inside the VM (pure cgroup v2),
# from the meson test vm-clients-docker:
#   tests/clients/in-vm.sh docker.sh --client /usr/bin/docker --client dockerd --client containerd \
#       --client containerd-shim-runc-v2 --client runc --client docker-init --client script [--build DIR] [--memory MB]
# dockerd keeps its data under /tmp/docker (vfs storage), has no bridge and no iptables, and every
# container runs with --network none: nothing touches networking. husk is the runtime "husk" of
# daemon.json's runtimes table; `docker run --runtime husk` or `--runtime runc` picks it per container.
# Each row asserts what can be observed: output, exit code, `docker inspect`, the runtime's own state and
# the container's cgroup files, /sys/fs/cgroup/docker/<ID>.
# What dockerd and its containerd send a runtime: docs/clients.md, "Docker".
# The rows' functions are called through `row`, which shellcheck cannot follow; the single-quoted
# scripts run inside the containers (their $ expands there).
# shellcheck disable=SC2317,SC2016
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

# dockerd (and the containerd it starts) in a cgroup of its own, as a service manager would put it: Docker
# learns from its own cgroup's files which limits the host has (without memory.swap.max there it drops
# every swap limit, "Memory limited without swap").
mkdir -p /sys/fs/cgroup/docker.service
umount /sys/kernel/security # DEV ONLY
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
field() { docker inspect -f "$1" "$2"; }
cgroup_of() { echo "$cgroup/$(field '{{.Id}}' "$1")"; }
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
status_is() { [ "$(field '{{.State.Status}}' "$1")" = "$2" ]; }
expect_in_cgroup() { # PID CGROUP_DIR
    grep -qx "$1" "$2/cgroup.procs" || { echo "pid $1 not in $2/cgroup.procs"; return 1; }
}
# The runtime itself, at the state root Docker gave it.
runtime_state() { "/usr/local/bin/$rt" --root "$state_root" state "$(field '{{.Id}}' "$1")"; }

# ---------------------------------------------------------------------------- rows
# Docker's defaults, which the rows below change: no_new_privs off, its seccomp profile on.
run_rm() {
    out=$(drun --rm "$image" sh -c 'echo hello; grep -E "^(NoNewPrivs|Seccomp):" /proc/self/status; exit 3')
    status=$?
    expect_eq output "hello
NoNewPrivs:	0
Seccomp:	2" "$out" && expect_eq "exit code" 3 "$status"
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

# The long-lived container: a shell that exits 7 on SIGTERM, so the exit code says which signal ended it.
long='trap "exit 7" TERM; echo ready; sleep 1000 & wait'
run_d() {
    drun -d --name "c-$rt" --ipc shareable "$image" sh -c "$long" > /dev/null || return 1
    expect_eq status running "$(field '{{.State.Status}}' "c-$rt")" || return 1
    expect_in_cgroup "$(field '{{.State.Pid}}' "c-$rt")" "$(cgroup_of "c-$rt")" || return 1
    expect_eq runtime "$rt" "$(field '{{.HostConfig.Runtime}}' "c-$rt")" || return 1
    st=$(runtime_state "c-$rt") || { echo "$rt --root $state_root state: $st"; return 1; }
    expect_contains "$rt state" '"running"' "$st"
}
logs() {
    wait_for "ready in docker logs" 10 sh -c "docker logs c-$rt | grep -qx ready"
}
exec_plain() {
    out=$(dk exec "c-$rt" sh -c 'echo in-exec; cat /proc/1/comm') || { echo "docker exec: $out"; return 1; }
    expect_eq output "in-exec
sh" "$out" || return 1
    dk exec "c-$rt" sh -c 'exit 5'
    expect_eq "exit code" 5 "$?"
}
exec_tty() {
    out=$(in_pty "docker exec -it c-$rt sh -c 'tty; echo exec-tty'")
    expect_contains output /dev/pts/ "$out" && expect_contains output exec-tty "$out"
}
exec_user() {
    out=$(dk exec --user 65534:65534 "c-$rt" id) || { echo "$out"; return 1; }
    expect_contains "id" "uid=65534(nobody) gid=65534(nogroup)" "$out"
}
top_() {
    out=$(dk top "c-$rt") || { echo "docker top: $out"; return 1; }
    expect_contains "docker top" "sleep 1000" "$out"
}
stats() {
    out=$(dk stats --no-stream --format '{{.PIDs}} {{.MemUsage}}' "c-$rt") || { echo "docker stats: $out"; return 1; }
    expect_eq "stats PIDs (= pids.current)" "$(cat "$(cgroup_of "c-$rt")/pids.current")" "${out%% *}" || return 1
    case $out in *" 0B / "*) echo "no memory usage: $out"; return 1 ;; esac
}
pause() {
    dk pause "c-$rt" > /dev/null || return 1
    expect_eq status paused "$(field '{{.State.Status}}' "c-$rt")" || return 1
    expect_contains cgroup.events "frozen 1" "$(cat "$(cgroup_of "c-$rt")/cgroup.events")"
}
unpause() {
    dk unpause "c-$rt" > /dev/null || return 1
    expect_eq status running "$(field '{{.State.Status}}' "c-$rt")" || return 1
    expect_contains cgroup.events "frozen 0" "$(cat "$(cgroup_of "c-$rt")/cgroup.events")"
}
cp_in_out() {
    echo "copied in by $rt" > "$D/cp-in"
    dk cp "$D/cp-in" "c-$rt:/tmp/cp-in" || return 1
    out=$(dk exec "c-$rt" cat /tmp/cp-in) || return 1
    expect_eq "the file copied in" "copied in by $rt" "$out" || return 1
    dk exec "c-$rt" sh -c 'echo made inside > /tmp/cp-out' || return 1
    rm -f "$D/cp-out"
    dk cp "c-$rt:/tmp/cp-out" "$D/cp-out" || return 1
    expect_eq "the file copied out" "made inside" "$(cat "$D/cp-out")"
}
# Namespaces of another container: its ipc ("shareable") and pid namespaces, joined by path.
share_namespaces() {
    pid=$(field '{{.State.Pid}}' "c-$rt")
    out=$(drun --rm --ipc "container:c-$rt" --pid "container:c-$rt" "$image" \
        sh -c 'readlink /proc/self/ns/ipc; readlink /proc/self/ns/pid; ps -o args | grep -c "^sleep 1000"') ||
        { echo "$out"; return 1; }
    expect_eq "ipc, pid namespaces and the other container's sleep" "$(readlink "/proc/$pid/ns/ipc")
$(readlink "/proc/$pid/ns/pid")
1" "$out"
}
stop() {
    dir=$(cgroup_of "c-$rt")
    dk stop -t 2 "c-$rt" > /dev/null || return 1
    expect_eq status exited "$(field '{{.State.Status}}' "c-$rt")" || return 1
    expect_eq "exit code (7: SIGTERM came first)" 7 "$(field '{{.State.ExitCode}}' "c-$rt")" || return 1
    [ ! -e "$dir" ] || { echo "$dir still exists"; return 1; }
}
start() {
    dk start "c-$rt" > /dev/null || return 1
    expect_eq status running "$(field '{{.State.Status}}' "c-$rt")" || return 1
    expect_in_cgroup "$(field '{{.State.Pid}}' "c-$rt")" "$(cgroup_of "c-$rt")"
}
rm_f() {
    dir=$(cgroup_of "c-$rt") pid=$(field '{{.State.Pid}}' "c-$rt") id=$(field '{{.Id}}' "c-$rt")
    dk rm -f "c-$rt" > /dev/null || return 1
    if dk inspect "c-$rt" > /dev/null 2>&1; then echo "c-$rt still exists"; return 1; fi
    [ ! -e "$dir" ] || { echo "$dir still exists"; return 1; }
    [ ! -e "/proc/$pid" ] || { echo "init (pid $pid) still runs"; return 1; }
    [ ! -e "$state_root/$id" ] || { echo "$state_root/$id still exists"; return 1; }
}

limits() {
    drun -d --name "l-$rt" --memory 64m --pids-limit 50 --cpus 0.5 "$image" sleep 1000 > /dev/null || return 1
    dir=$(cgroup_of "l-$rt")
    # Docker asks for swap = 2 x the limit when --memory-swap is not given; cgroup v2 counts swap apart.
    expect_eq memory.max 67108864 "$(cat "$dir/memory.max")" &&
        expect_eq memory.swap.max 67108864 "$(cat "$dir/memory.swap.max")" &&
        expect_eq pids.max 50 "$(cat "$dir/pids.max")" &&
        expect_eq cpu.max "50000 100000" "$(cat "$dir/cpu.max")"
}
# Docker always sends "kernel": 0 (and kernelTCP 0) in update's resources, which means unset.
update() {
    dk update --memory 128m --memory-swap 256m --pids-limit 60 --cpus 1 "l-$rt" > /dev/null || return 1
    dir=$(cgroup_of "l-$rt")
    max=$(cat "$dir/memory.max") swap=$(cat "$dir/memory.swap.max") pids=$(cat "$dir/pids.max") cpu=$(cat "$dir/cpu.max")
    dk rm -f "l-$rt" > /dev/null || return 1
    expect_eq memory.max 134217728 "$max" && expect_eq memory.swap.max 134217728 "$swap" &&
        expect_eq pids.max 60 "$pids" && expect_eq cpu.max "100000 100000" "$cpu"
}
# dd's 64 MiB buffer, filled by read(), against a 32 MiB limit without swap.
oom() {
    drun --name "o-$rt" --memory 32m --memory-swap 32m "$image" dd if=/dev/zero of=/dev/null bs=64M count=1 > /dev/null 2>&1
    status=$? killed=$(field '{{.State.OOMKilled}}' "o-$rt") code=$(field '{{.State.ExitCode}}' "o-$rt")
    dk rm "o-$rt" > /dev/null || return 1
    expect_eq "docker run's exit code" 137 "$status" && expect_eq ExitCode 137 "$code" &&
        expect_eq OOMKilled true "$killed"
}
read_only_tmpfs() {
    out=$(drun --rm --read-only --tmpfs /scratch:size=1m,mode=1770 "$image" sh -c 'touch /x 2>&1; echo "touch: $?"
        grep " /scratch " /proc/mounts; stat -c "mode %a" /scratch; echo data > /scratch/f && cat /scratch/f') ||
        { echo "$out"; return 1; }
    expect_contains "output" "Read-only file system" "$out" && expect_contains "touch's status" "touch: 1" "$out" &&
        expect_contains "/scratch's mount" "tmpfs /scratch tmpfs rw,nosuid,nodev,noexec" "$out" &&
        expect_contains "/scratch's size" "size=1024k" "$out" && expect_contains "/scratch's mode" "mode 1770" "$out" &&
        expect_contains "a file on /scratch" data "$out"
}
cap_drop() {
    out=$(drun --rm --cap-drop ALL "$image" grep -E '^Cap(Eff|Prm|Bnd):' /proc/self/status) || { echo "$out"; return 1; }
    expect_eq "capability sets" "CapPrm:	0000000000000000
CapEff:	0000000000000000
CapBnd:	0000000000000000" "$out"
}
no_new_privileges() {
    out=$(drun --rm --security-opt no-new-privileges "$image" grep NoNewPrivs /proc/self/status)
    expect_eq "NoNewPrivs" "NoNewPrivs:	1" "$out"
}
# Docker's default profile (no option: it is on) allows unshare(2) only with CAP_SYS_ADMIN.
seccomp_default() {
    out=$(drun --rm "$image" sh -c 'grep Seccomp: /proc/self/status; unshare -U true 2>&1; echo "unshare: $?"')
    expect_contains "seccomp mode" "Seccomp:	2" "$out" && expect_contains "unshare -U" "unshare: 1" "$out" &&
        expect_contains "unshare's error" "Operation not permitted" "$out"
}
init_flag() {
    out=$(drun --rm --init "$image" sh -c 'cat /proc/1/comm; echo "sh is pid $$"') || { echo "$out"; return 1; }
    expect_eq "pid 1 and the command's pid" "docker-init
sh is pid 7" "$(echo "$out" | sed 's/pid [0-9]*$/pid 7/')" || return 1
    case $out in *"sh is pid 1"*) echo "the command is pid 1: $out"; return 1 ;; esac
}
user() {
    out=$(drun --rm --user 65534:65534 "$image" sh -c 'id; touch /x 2>&1') 
    expect_contains id "uid=65534(nobody) gid=65534(nogroup)" "$out" && expect_contains "touch /" "Permission denied" "$out"
}
restart_on_failure() {
    drun -d --name "r-$rt" --restart on-failure:2 "$image" sh -c 'echo attempt; exit 3' > /dev/null || return 1
    wait_for "two restarts, then exited" 60 sh -c \
        "[ \"\$(docker inspect -f '{{.RestartCount}} {{.State.Status}}' r-$rt)\" = '2 exited' ]" || {
        field '{{.RestartCount}} {{.State.Status}}' "r-$rt"; return 1; }
    code=$(field '{{.State.ExitCode}}' "r-$rt") attempts=$(dk logs "r-$rt" | grep -c attempt)
    dk rm "r-$rt" > /dev/null || return 1
    expect_eq "exit code" 3 "$code" && expect_eq "runs in docker logs" 3 "$attempts"
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
        [ ! -d "$state_root" ] || find "$state_root" -mindepth 1 -maxdepth 1)
    for d in /proc/[0-9]*; do
        case $(tr '\0' ' ' 2>/dev/null < "$d/cmdline") in
            /usr/local/bin/containerd-shim*|/usr/local/bin/husk*|/usr/local/bin/runc*|/sbin/docker-init*|sleep\ 1000*) left="$left
process ${d#/proc/}: $(tr '\0' ' ' < "$d/cmdline")" ;;
        esac
    done
    [ -z "$left" ] || { echo "left behind: $left"; return 1; }
}

for rt in runc husk; do
    row "run --rm: output, exit code" $rt run_rm
    row "/nonexistent: exit code 127" $rt nonexistent
    row "not executable: exit code 126" $rt not_executable
    row "run -d: running, in its cgroup, the runtime's state" $rt run_d
    row "logs" $rt logs
    row "exec: output, exit code" $rt exec_plain
    row "exec -it" $rt exec_tty
    row "exec --user" $rt exec_user
    row "top" $rt top_
    row "stats --no-stream" $rt stats
    row "pause" $rt pause
    row "unpause" $rt unpause
    row "cp in and out" $rt cp_in_out
    row "--ipc container:X --pid container:X" $rt share_namespaces
    row "stop -t 2: SIGTERM, exit code" $rt stop
    row "start" $rt start
    row "rm -f" $rt rm_f
    row "--memory --pids-limit --cpus: cgroup files" $rt limits
    row "update (kernel 0): cgroup files" $rt update
    row "--memory: OOMKilled" $rt oom
    row "--read-only, --tmpfs" $rt read_only_tmpfs
    row "--cap-drop ALL" $rt cap_drop
    row "--security-opt no-new-privileges" $rt no_new_privileges
    row "default seccomp profile" $rt seccomp_default
    row "--init" $rt init_flag
    row "--user" $rt user
    row "--restart on-failure:2" $rt restart_on_failure
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
