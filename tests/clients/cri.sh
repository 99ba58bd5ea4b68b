#!/bin/sh
# containerd 1.6's CRI plugin (what the kubelet talks to) driving runc and husk, the latter through runc's shim
# and through its own (containerd-shim-husk-v2), row by row; runs inside the VM (pure cgroup v2), from the
# meson test vm-clients-cri:
#   tests/clients/in-vm.sh cri.sh --prepare cri-prepare.sh --client containerd --client containerd-shim-runc-v2 \
#       --client ctr --client runc [--build DIR] [--memory MB]
# The client is cri.py (gRPC, runtime.v1), run by the Python cri-prepare.sh put into python.tar: Debian 12 has
# no crictl. containerd runs with its root, state and socket under /tmp/cri, the native snapshotter, and the
# CRI plugin's default config plus the runtime handlers `husk` (the runc v2 shim with BinaryName husk) and
# `husk-shim` (runtime_type io.containerd.husk.v2: husk's own shim, state under /run/containerd/husk/k8s.io
# as the `husk` handler's Root gives; container ids never repeat, so the two share it); `runc` stays the
# default handler. For runc and husk-shim a row restarts containerd (SIGKILL) while the pod runs: the shim
# outlives it, and the new containerd finds the pod and its container again. Pods use the host's network (no CNI), a pause image built from catatonit,
# and the cgroup parent /kubepods/pod-<runtime> (cgroupfs, as a kubelet with that driver gives). Every row
# asserts what can be observed: what the CRI plugin reports, the container log file, the runtime's state,
# the cgroup files.
# What the CRI plugin sends a runtime: docs/clients.md, "containerd's CRI plugin".
# The rows' functions are called through `row`, which shellcheck cannot follow; the single-quoted
# scripts run inside the containers (their $ expands there); `set -- $(cri ...)` splits cri.py's fields.
# shellcheck disable=SC2317,SC2016,SC2046
set -u
# shellcheck source=tests/clients/lib.sh
. ./lib.sh

C=/tmp/cri
export CRI_ADDRESS=unix://$C/containerd.sock CRI_STATE=$C/client CONTAINERD_ADDRESS=$C/containerd.sock \
    CONTAINERD_SNAPSHOTTER=native
busybox=localhost/busybox:latest

# Debian's python3 with grpcio and the stubs, at the host's paths (cri-prepare.sh).
if ! tar -xf python.tar -C /; then echo "cri.sh: cannot unpack python.tar"; exit 1; fi
rm python.tar
mkdir -p $C/logs

# The CRI plugin copies the host's resolv.conf into a host-network pod; the guest has none.
[ -e /etc/resolv.conf ] || : > /etc/resolv.conf
cat > $C/config.toml <<EOF
version = 2
root = "$C/root"
state = "$C/state"
# The guest's root is a tmpfs: no overlay; the other snapshotters need what the guest lacks.
disabled_plugins = ["io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.btrfs",
    "io.containerd.snapshotter.v1.devmapper", "io.containerd.snapshotter.v1.zfs",
    "io.containerd.snapshotter.v1.overlayfs"]
[grpc]
  address = "$C/containerd.sock"
[ttrpc]
  address = "$C/containerd.sock.ttrpc"
[debug]
  address = "$C/debug.sock"
[plugins."io.containerd.snapshotter.v1.native"]
  root_path = "$C/native"
[plugins."io.containerd.monitor.v1.cgroups"]
  no_prometheus = true
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "localhost/pause:latest"
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "native"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.husk]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.husk.options]
        BinaryName = "/usr/local/bin/husk"
        Root = "/run/containerd/husk"
        SystemdCgroup = false
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.husk-shim]
      runtime_type = "io.containerd.husk.v2"
  # No CNI configuration: the runtime reports NetworkReady false, and host-network pods need none.
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "$C/cni/bin"
    conf_dir = "$C/cni/conf"
EOF

# Started again by a row (after SIGKILL), with the same config and log; fd 8 (below) is the client's.
start_containerd() {
    containerd --config $C/config.toml >> $C/containerd.log 2>&1 8>&- &
    containerd_pid=$!
}
start_containerd

# The client runs once (`cri.py serve`): under TCG each start of the interpreter and grpc costs over a
# second, and a row makes several calls. A call writes its arguments, each ended by \037, as one line to
# one FIFO and reads the reply from the other: "O TEXT" lines (stdout), "E TEXT" (stderr), "S STATUS".
# Every RPC has its own deadline (cri.py); a reply that never comes fails the call after 300 s.
mkfifo $C/cri.requests $C/cri.responses
/usr/bin/python3.11 -S ./cri.py serve $C/cri.requests $C/cri.responses &
client_pid=$!
# Read and write: opening it does not wait for the client, and the client's open does not wait for us.
# After containerd started: it need not inherit the FIFO.
exec 8<> $C/cri.responses
unit_separator=$(printf '\037')
cri() {
    for arg in "$@"; do
        case $arg in *"$unit_separator"*|*"
"*) echo "cri: an argument holds a newline or the unit separator: $arg" >&2; return 2 ;; esac
    done
    { printf '%s\037' "$@"; echo; } > $C/cri.requests
    # shellcheck disable=SC3045  # busybox ash's read has -t
    while IFS= read -r -t 300 reply <&8; do
        case $reply in
            "O "*) printf '%s\n' "${reply#O }" ;;
            "E "*) printf '%s\n' "${reply#E }" >&2 ;;
            "S "*) return "${reply#S }" ;;
        esac
    done
    echo "cri: no reply from the client (cri.py serve) within 300 s" >&2
    return 2
}

wait_ready() { # up to 60 s
    i=0
    until cri ready > /dev/null 2>&1; do
        i=$((i + 1))
        if [ $i -gt 60 ] || [ ! -e /proc/$containerd_pid ]; then
            echo "the CRI plugin was not ready in time:"
            tail -n 30 $C/containerd.log
            return 1
        fi
        sleep 1
    done
}
wait_ready || exit 1
watch_memory
for tar in busybox.tar pause.tar; do
    timeout 120 ctr -n k8s.io images import $tar > /dev/null || { echo "ctr images import $tar failed"; exit 1; }
done
for ref in $busybox localhost/pause:latest; do
    cri image "$ref" > /dev/null || { echo "the CRI plugin does not know $ref"; exit 1; }
done
echo "cri.sh: $(cri version)"

# ---------------------------------------------------------------------------- helpers
# The runtime's own state root: the handler's Root, or runc's default, each with containerd's namespace;
# husk's shim keeps its state where the husk handler's Root puts it. And the runtime that reads it.
state_root() { if [ "$rt" = runc ]; then echo /run/containerd/runc/k8s.io; else echo /run/containerd/husk/k8s.io; fi; }
runtime_binary() { if [ "$rt" = runc ]; then echo /usr/local/bin/runc; else echo /usr/local/bin/husk; fi; }
ctr_field() { # ID N: field N of `cri status` (1 state, 2 exit code, 3 reason, 4 pid)
    cri status "$1" | awk -v n="$2" '{ print $n }'
}
cgroup_of_pid() { echo "/sys/fs/cgroup$(sed -n 's/^0:://p' "/proc/$1/cgroup")"; }
wait_exited() { # ID: polls for up to 30 s
    n=0
    while [ "$(ctr_field "$1" 1)" != exited ]; do
        n=$((n + 1))
        [ "$n" -le 30 ] || { echo "$1: $(cri status "$1"), expected exited"; return 1; }
        sleep 1
    done
}
log_of() { cat "$C/logs/$rt/$1.log"; }
# The CRI log format: "<RFC 3339 time> <stream> <F(ull)|P(artial)> <text>"; the text alone.
log_text() { log_of "$1" | sed -E 's/^[^ ]+ (stdout|stderr) [FP] //'; }
# CreateContainer and StartContainer in the current pod, its log file NAME.log: prints "ID PID".
create_start() { # NAME [cri.py create OPTION...] -- COMMAND...
    name=$1
    shift
    cri create "$pod" "$name" "$busybox" --log "$name.log" --start "$@"
}
# The shim's complaint when `kill --all` fails after a container that shares a pid namespace ended.
kill_all_errors() { grep -c "failed to kill init's children" "$C/containerd.log"; }

# ---------------------------------------------------------------------------- rows
run_pod() {
    mkdir -p "$C/logs/$rt"
    pod=$(cri runp "pod-$rt" "$rt" --log-dir "$C/logs/$rt" --cgroup-parent "/kubepods/pod-$rt") || return 1
    set -- $(cri podstatus "$pod")
    expect_eq "sandbox state, handler" "ready $rt" "$1 $2" || return 1
    pause_pid=$3
    expect_eq "the sandbox's process" catatonit "$(cat "/proc/$pause_pid/comm")" &&
        expect_eq "its cgroup" "0::/kubepods/pod-$rt/$pod" "$(cat "/proc/$pause_pid/cgroup")" &&
        expect_eq "its network namespace (the host's)" "$(readlink /proc/1/ns/net)" "$(readlink "/proc/$pause_pid/ns/net")" ||
        return 1
    st=$("$(runtime_binary)" --root "$(state_root)" state "$pod") || { echo "$(runtime_binary) state: $st"; return 1; }
    expect_contains "$(runtime_binary) --root $(state_root) state" '"running"' "$st"
}
create_start_row() {
    set -- $(create_start c1 -- sh -c 'trap "exit 7" TERM; echo hello-cri; echo to-stderr >&2; sleep 1000 & wait')
    c1=${1:-} c1_pid=${2:-}
    [ -n "$c1_pid" ] || return 1
    expect_eq state running "$(ctr_field "$c1" 1)" &&
        expect_eq "its cgroup" "0::/kubepods/pod-$rt/$c1" "$(cat "/proc/$c1_pid/cgroup")"
}
logs() {
    n=0
    until log_of c1 2>/dev/null | grep -q " stderr F to-stderr"; do
        n=$((n + 1))
        [ "$n" -le 20 ] || { echo "the log file holds: $(log_of c1 2>&1)"; return 1; }
        sleep 0.5
    done
    log_of c1 | grep -qE '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[^ ]+ stdout F hello-cri$' ||
        { echo "no stdout line 'hello-cri' in: $(log_of c1)"; return 1; }
}
exec_sync() {
    out=$(cri exec "$c1" 30 sh -c 'echo in-exec; cat /proc/1/comm; exit 5')
    expect_eq "exit code" 5 "$?" && expect_eq output "in-exec
sh" "$out"
}
exec_missing() {
    if out=$(cri exec "$c1" 30 /nonexistent 2>&1); then echo "ExecSync succeeded: $out"; return 1; fi
    expect_contains "the error" "no such file or directory" "$out"
}
# containerd killed (SIGKILL) and started again with the same config while the pod runs: the shims outlive
# it, and the new containerd reconnects to them; the CRI plugin lists the pod and its container as they were,
# and ExecSync works (the next row stops the container).
restart_containerd() {
    kill -KILL "$containerd_pid"
    wait "$containerd_pid" 2>/dev/null  # the shell says "Killed"
    start_containerd
    wait_ready || return 1
    cri ctrs | grep -qx "$c1" || { echo "$c1 not listed after the restart: $(cri ctrs)"; return 1; }
    set -- $(cri status "$c1")
    expect_eq "c1's state, pid" "running $c1_pid" "${1:-} ${4:-}" || return 1
    set -- $(cri podstatus "$pod")
    expect_eq "the sandbox's state, pid" "ready $pause_pid" "${1:-} ${3:-}" || return 1
    out=$(cri exec "$c1" 30 sh -c 'echo after-restart; exit 3')
    expect_eq "exit code" 3 "$?" && expect_eq output after-restart "$out"
}
stop() {
    dir=$(cgroup_of_pid "$c1_pid")
    cri stop "$c1" 10 || return 1
    set -- $(cri status "$c1")
    expect_eq "state, exit code (7: SIGTERM came first), reason" "exited 7 Error" "$1 $2 $3" || return 1
    [ ! -e "$dir" ] || { echo "$dir still exists"; return 1; }
}
remove() {
    cri rm "$c1" || return 1
    if cri ctrs | grep -qx "$c1"; then echo "$c1 still listed"; return 1; fi
    [ ! -e "$(state_root)/$c1" ] || { echo "$(state_root)/$c1 still exists"; return 1; }
}
limits() {
    set -- $(create_start c3 --memory 67108864 --unified pids.max=50 --cpu-quota 50000 -- sleep 1000)
    c3=${1:-} c3_pid=${2:-}
    [ -n "$c3_pid" ] || return 1
    dir=$(cgroup_of_pid "$c3_pid")
    expect_eq memory.max 67108864 "$(cat "$dir/memory.max")" && expect_eq pids.max 50 "$(cat "$dir/pids.max")" &&
        expect_eq cpu.max "50000 100000" "$(cat "$dir/cpu.max")"
}
# containerd's shim sends `update --resources -` with the resources on stdin.
update() {
    dir=$(cgroup_of_pid "$c3_pid")
    cri update "$c3" --memory 134217728 --unified pids.max=60 || return 1
    max=$(cat "$dir/memory.max") pids=$(cat "$dir/pids.max")
    cri stop "$c3" 0 --rm || return 1
    expect_eq memory.max 134217728 "$max" && expect_eq pids.max 60 "$pids"
}
# dd's 64 MiB buffer, filled by read(), against a 32 MiB limit.
oom() {
    c4=$(create_start c4 --memory 33554432 -- dd if=/dev/zero of=/dev/null bs=64M count=1) || return 1
    c4=${c4% *}
    wait_exited "$c4" || return 1
    # containerd takes the reason from the shim's /tasks/oom event, which may be handled after the exit
    # (runc's shim sends the two from separate goroutines), as the kubelet would see it a moment later.
    n=0
    while set -- $(cri status "$c4") && [ "$3" != OOMKilled ] && [ "$n" -lt 10 ]; do
        n=$((n + 1))
        sleep 0.5
    done
    cri rm "$c4" || return 1
    expect_eq "exit code, reason" "137 OOMKilled" "$2 $3"
}
# The kubelet's restricted pod: RuntimeDefault (containerd's default profile), a read-only root, a user.
restricted() {
    c5=$(create_start c5 --seccomp runtime-default --read-only --user 65534 --group 65534 -- \
        sh -c 'grep -E "^(Seccomp|NoNewPrivs):" /proc/self/status; id; touch /x') || return 1
    c5=${c5% *}
    wait_exited "$c5" || return 1
    set -- $(cri status "$c5")
    out=$(log_text c5)
    cri rm "$c5" || return 1
    expect_eq "exit code (touch failed)" 1 "$2" && expect_contains "seccomp" "Seccomp:	2" "$out" &&
        expect_contains id "uid=65534(nobody) gid=65534(nogroup)" "$out" && expect_contains "touch /x" "Read-only file system" "$out"
}
# Two containers sharing the sandbox's namespaces, pid included (PodSpec shareProcessNamespace): each joins
# them by path, and when one ends the shim kills what is left in it (`kill --all`).
two_containers() {
    errors=$(kill_all_errors)
    set -- $(create_start a --pid-mode pod -- sleep 1000) $(create_start b --pid-mode pod -- sh -c 'trap "exit 0" TERM; sleep 1000 & wait')
    [ $# = 4 ] || return 1
    a=$1 a_pid=$2 b=$3 b_pid=$4
    for ns in ipc uts pid net; do
        want=$(readlink "/proc/$pause_pid/ns/$ns")
        expect_eq "a's $ns namespace" "$want" "$(readlink "/proc/$a_pid/ns/$ns")" &&
            expect_eq "b's $ns namespace" "$want" "$(readlink "/proc/$b_pid/ns/$ns")" || return 1
    done
    out=$(cri exec "$a" 30 ps -o args) || return 1
    expect_contains "a sees b's processes" "sh -c trap" "$out" || return 1
    cri stop "$b" 10 || return 1
    expect_eq "b's state, exit code" "exited 0" "$(cri status "$b" | cut -d' ' -f1,2)" || return 1
    expect_eq "a still runs" running "$(ctr_field "$a" 1)" || return 1
    cri stop "$a" 0 --rm && cri rm "$b" || return 1
    expect_eq "containerd's log: \"failed to kill init's children\"" "$errors" "$(kill_all_errors)"
}
stop_remove_pod() {
    cri stopp "$pod" || return 1
    [ ! -e "/proc/$pause_pid" ] || { echo "the sandbox's process $pause_pid still runs"; return 1; }
    cri rmp "$pod" || return 1
    if cri pods | grep -qx "$pod"; then echo "$pod still listed"; return 1; fi
    # The pod's cgroup is the kubelet's to remove.
    rmdir "/sys/fs/cgroup/kubepods/pod-$rt"
}
# Whatever a runtime leaves behind: pods, containers, cgroups, shim or runtime processes, state, mounts.
nothing_left() {
    left=$(cri pods; cri ctrs; ls -d /sys/fs/cgroup/kubepods/*/ 2>/dev/null; grep -E " $C/(state|root)/" /proc/mounts
        [ ! -d "$(state_root)" ] || find "$(state_root)" -mindepth 1 -maxdepth 1
        processes_matching '/usr/local/bin/containerd-shim*' '/usr/local/bin/husk*' 'runc*' '/usr/local/bin/runc*' \
            '/catatonit*' 'sleep 1000*')
    [ -z "$left" ] || { echo "left behind: $left"; return 1; }
}

for rt in runc husk husk-shim; do
    pod="" pause_pid="" c1="" c1_pid="" c3="" c3_pid=""
    row "RunPodSandbox (host network): ready, pause in its cgroup, the runtime's state" $rt run_pod
    row "CreateContainer, StartContainer: running, in its cgroup" $rt create_start_row
    row "the CRI log file: stdout and stderr lines" $rt logs
    row "ExecSync: output, exit code" $rt exec_sync
    row "ExecSync of a missing binary: the runtime's error" $rt exec_missing
    [ $rt = husk ] ||
        row "containerd restarted (SIGKILL) while the pod runs: pod and container running, ExecSync" $rt restart_containerd
    row "StopContainer: SIGTERM, exit code, cgroup gone" $rt stop
    row "RemoveContainer: gone, the runtime's state gone" $rt remove
    row "limits: memory, pids (unified), cpu quota in the cgroup files" $rt limits
    row "UpdateContainerResources: memory, pids" $rt update
    row "OOM kill: exit code 137, reason OOMKilled" $rt oom
    row "RuntimeDefault seccomp, read-only root, non-root user" $rt restricted
    row "two containers sharing the pod's namespaces (pid too)" $rt two_containers
    row "StopPodSandbox, RemovePodSandbox" $rt stop_remove_pod
    row "nothing left behind" $rt nothing_left
done

status=0
report || status=1
kill "$client_pid" "$containerd_pid"
exit "$status"
