#!/bin/sh
# podman 4.3 (with conmon 2.1) driving runc and husk, row by row; runs inside the VM (pure cgroup v2),
# from the meson test vm-clients-podman:
#   tests/clients/in-vm.sh podman.sh --client podman --client conmon --client catatonit --client runc \
#       --client script --file /usr/share/containers/seccomp.json [--build DIR] [--memory MB]
# podman keeps everything under /tmp/podman (vfs storage, cgroup_manager cgroupfs, events in a file) and
# every container has no network (netns = "none"): nothing touches networking. Each row asserts what can
# be observed: output, exit code, podman's view of the state, the runtime's own state, and the values in
# the container's cgroup, /sys/fs/cgroup/libpod_parent/libpod-<ID>.
# Calls conmon and podman make and what they expect: docs/clients.md, "podman / conmon".
# The rows' functions are called through `row`, which shellcheck cannot follow; the single-quoted
# scripts run inside the containers (their $ expands there).
# shellcheck disable=SC2317,SC2016
set -u
# shellcheck source=tests/clients/lib.sh
. ./lib.sh

P=/tmp/podman
image=localhost/busybox:latest
libpod=/sys/fs/cgroup/libpod_parent

# Two containers.conf files that differ only in runtime_supports_json. Listed (json.conf, the main one),
# conmon passes the runtime --log-format=json --log FILE and reads its errors from that file; not listed
# (stderr.conf), it forwards the runtime's stderr. podman runs each runtime by its name in the table.
write_conf() { # FILE SUPPORTS_JSON
    cat > "$1" <<EOF
[containers]
log_driver = "k8s-file"
netns = "none"
init_path = "/usr/local/bin/catatonit"
[engine]
cgroup_manager = "cgroupfs"
events_logger = "file"
events_logfile_path = "$P/events.log"
tmp_dir = "$P/tmp"
static_dir = "$P/root/libpod"
volume_path = "$P/root/volumes"
conmon_path = ["/usr/local/bin/conmon"]
helper_binaries_dir = ["/usr/local/bin"]
runtime = "runc"
runtime_supports_json = [$2]
[engine.runtimes]
runc = ["/usr/local/bin/runc"]
husk = ["/usr/local/bin/husk"]
[network]
network_config_dir = "$P/cni"
EOF
}

mkdir -p $P/tmp /etc/containers /usr/share/containers /var/tmp
# podman's default seccomp profile, where podman looks for it (containers.conf names no profile).
cp seccomp.json /usr/share/containers/seccomp.json
# `podman load` checks the signature policy; the image is built locally.
echo '{"default":[{"type":"insecureAcceptAnything"}]}' > /etc/containers/policy.json
write_conf $P/json.conf '"runc", "husk"'
write_conf $P/stderr.conf '"crun"'
cat > $P/storage.conf <<EOF
[storage]
driver = "vfs"
runroot = "$P/runroot"
graphroot = "$P/root"
EOF
export CONTAINERS_CONF=$P/json.conf CONTAINERS_STORAGE_CONF=$P/storage.conf

# Every client call is bounded: a hang fails its row instead of eating the harness's timeout.
podman() { timeout 120 /usr/local/bin/podman "$@"; }
if ! podman load -q -i busybox.tar; then
    echo "podman.sh: podman load failed" >&2
    exit 1
fi
watch_memory

# ---------------------------------------------------------------------------- helpers
pm() { podman --runtime "$rt" "$@"; }
field() { podman inspect -f "$1" "$2"; }
cgroup_of() { echo "$libpod/libpod-$(field '{{.Id}}' "$1")"; }
# script(1) gives podman -it a terminal; the pty adds a CR to each line.
in_pty() { timeout 120 script -qec "$*" /dev/null | tr -d '\r'; }
# A process that should end soon after podman returns (conmon writes the exit file, then cleans up).
gone_within_2s() { # WHAT PID
    i=0
    while [ -e "/proc/$2" ]; do
        i=$((i + 1))
        [ $i -lt 20 ] || { echo "$1 (pid $2) still runs 2 s later: $(tr '\0' ' ' < "/proc/$2/cmdline")"; return 1; }
        sleep 0.1
    done
}
expect_in_cgroup() { # PID CGROUP_DIR
    grep -qx "$1" "$2/cgroup.procs" || { echo "pid $1 not in $2/cgroup.procs"; return 1; }
}

# ---------------------------------------------------------------------------- rows
run_rm() {
    out=$(pm run --rm $image sh -c 'echo hello; grep ^Seccomp: /proc/self/status; cat /sys/fs/cgroup/pids.max') ||
        { echo "podman run --rm: $out"; return 1; }
    expect_eq "output (hello, the seccomp mode, podman's default pids.max)" "hello
Seccomp:	2
2048" "$out"
}

# The long-lived container: a shell that exits 7 on SIGTERM, so the exit code says which signal ended it.
long='trap "exit 7" TERM; echo ready; sleep 1000 & wait'
run_d() {
    pm run -d --name "c-$rt" $image sh -c "$long" > /dev/null || return 1
    expect_eq status running "$(field '{{.State.Status}}' "c-$rt")" || return 1
    expect_in_cgroup "$(field '{{.State.Pid}}' "c-$rt")" "$(cgroup_of "c-$rt")" || return 1
    expect_eq pids.max 2048 "$(cat "$(cgroup_of "c-$rt")/pids.max")"
}
exec_plain() {
    out=$(pm exec "c-$rt" sh -c 'echo in-exec; cat /proc/1/comm' 2>&1) || { echo "podman exec: $out"; return 1; }
    expect_eq output "in-exec
sh" "$out"
}
exec_tty() {
    out=$(in_pty "podman --runtime $rt exec -it c-$rt sh -c 'tty; echo exec-tty'")
    expect_contains "output" /dev/pts/ "$out" && expect_contains "output" exec-tty "$out"
}
top_() {
    out=$(pm top "c-$rt" pid args) || { echo "podman top: $out"; return 1; }
    expect_contains "podman top" "sleep 1000" "$out"
}
stats() {
    out=$(pm stats --no-stream --format '{{.PIDs}}' "c-$rt") || { echo "podman stats: $out"; return 1; }
    expect_eq "stats PIDs (= pids.current)" "$(cat "$(cgroup_of "c-$rt")/pids.current")" "$out"
}
pause() {
    pm pause "c-$rt" > /dev/null || return 1
    expect_eq status paused "$(field '{{.State.Status}}' "c-$rt")" || return 1
    expect_contains cgroup.events "frozen 1" "$(cat "$(cgroup_of "c-$rt")/cgroup.events")"
}
unpause() {
    pm unpause "c-$rt" > /dev/null || return 1
    expect_eq status running "$(field '{{.State.Status}}' "c-$rt")" || return 1
    expect_contains cgroup.events "frozen 0" "$(cat "$(cgroup_of "c-$rt")/cgroup.events")"
}
stop() {
    dir=$(cgroup_of "c-$rt") conmon=$(field '{{.State.ConmonPid}}' "c-$rt")
    pm stop -t 2 "c-$rt" > /dev/null || return 1
    expect_eq status exited "$(field '{{.State.Status}}' "c-$rt")" || return 1
    expect_eq "exit code (7: SIGTERM came first)" 7 "$(field '{{.State.ExitCode}}' "c-$rt")" || return 1
    [ ! -e "$dir" ] || { echo "$dir still exists"; return 1; }
    gone_within_2s conmon "$conmon"
}
start() {
    pm start "c-$rt" > /dev/null || return 1
    expect_eq status running "$(field '{{.State.Status}}' "c-$rt")" || return 1
    expect_in_cgroup "$(field '{{.State.Pid}}' "c-$rt")" "$(cgroup_of "c-$rt")"
}
restart() {
    old=$(field '{{.State.Pid}}' "c-$rt")
    pm restart -t 2 "c-$rt" > /dev/null || return 1
    expect_eq status running "$(field '{{.State.Status}}' "c-$rt")" || return 1
    pid=$(field '{{.State.Pid}}' "c-$rt")
    [ "$pid" != "$old" ] || { echo "the same pid $pid after restart"; return 1; }
    expect_in_cgroup "$pid" "$(cgroup_of "c-$rt")"
}
rm_f() {
    dir=$(cgroup_of "c-$rt") pid=$(field '{{.State.Pid}}' "c-$rt") conmon=$(field '{{.State.ConmonPid}}' "c-$rt")
    pm rm -f "c-$rt" > /dev/null || return 1
    if podman container exists "c-$rt"; then echo "c-$rt still exists"; return 1; fi
    [ ! -e "$dir" ] || { echo "$dir still exists"; return 1; }
    [ ! -e "/proc/$pid" ] || { echo "init (pid $pid) still runs"; return 1; }
    gone_within_2s conmon "$conmon"
}

run_stdin() {
    out=$(echo from-stdin | pm run -i --rm $image sh -c 'read line; echo "got $line"') || { echo "$out"; return 1; }
    expect_eq output "got from-stdin" "$out"
}
# The container reads a line from its terminal before it writes. podman connects to conmon's attach socket and
# starts the container at once; conmon accepts that connection in its main loop, and what the container wrote
# before then goes to the log alone, never to podman (seen with husk, whose start is quicker than runc's: 1 run in
# 50-80 under TCG printed nothing, while `podman logs` held the whole output). The line reaches the container
# through that same connection, so once it has been read, podman is attached, and all that follows reaches it.
run_tty() {
    out=$(printf 'go\n' | in_pty "podman --runtime $rt run -it --rm $image sh -c 'read line; tty; echo run-tty \$line'")
    expect_contains output /dev/pts/0 "$out" && expect_contains output "run-tty go" "$out"
}

memory() {
    pm run -d --name "m-$rt" --memory 64m $image sleep 1000 > /dev/null || return 1
    # podman asks for swap = 2 x the limit; cgroup v2 counts swap apart: memory.swap.max = 64 MiB.
    expect_eq memory.max 67108864 "$(cat "$(cgroup_of "m-$rt")/memory.max")" &&
        expect_eq memory.swap.max 67108864 "$(cat "$(cgroup_of "m-$rt")/memory.swap.max")"
}
update_memory() {
    pm update --memory 128m "m-$rt" > /dev/null || return 1
    max=$(cat "$(cgroup_of "m-$rt")/memory.max") swap=$(cat "$(cgroup_of "m-$rt")/memory.swap.max")
    pm rm -f -t 0 "m-$rt" > /dev/null || return 1
    expect_eq memory.max 134217728 "$max" && expect_eq memory.swap.max 134217728 "$swap"
}
pids_unlimited() {
    pm run -d --name "p-$rt" --pids-limit -1 $image sleep 1000 > /dev/null || return 1
    max=$(cat "$(cgroup_of "p-$rt")/pids.max")
    pm rm -f -t 0 "p-$rt" > /dev/null || return 1
    expect_eq pids.max max "$max"
}

init_flag() {
    # catatonit is bind-mounted at /run/podman-init and is pid 1; the command runs as its child.
    out=$(pm run --rm --init $image sh -c 'tr "\0" " " < /proc/1/cmdline; echo; echo "sh is pid $$"') ||
        { echo "$out"; return 1; }
    expect_contains "pid 1" "/run/podman-init -- sh -c" "$out" || return 1
    case $out in *"sh is pid 1"*) echo "the command is pid 1: $out"; return 1 ;; esac
}
init_start() {
    pm create --name "i-$rt" $image sh -c "$long" > /dev/null || return 1
    pm init "i-$rt" > /dev/null || return 1
    expect_eq "status after init" initialized "$(field '{{.State.Status}}' "i-$rt")" || return 1
    # podman passes no --root: the runtime's default root holds the state.
    st=$("/usr/local/bin/$rt" state "$(field '{{.Id}}' "i-$rt")") || { echo "$rt state: $st"; return 1; }
    expect_contains "$rt state" '"created"' "$st" || return 1
    pm start "i-$rt" > /dev/null || return 1
    expect_eq "status after start" running "$(field '{{.State.Status}}' "i-$rt")" || return 1
    expect_contains "podman logs" ready "$(pm logs "i-$rt")" || return 1
    pm rm -f "i-$rt" > /dev/null
}
preserve_fds() {
    echo passed-fd > $P/fd3
    # ls writes straight to the container's stdout: a pipeline or $(...) would give the shell a pipe of its
    # own while ls reads its fds. Then where each fd points (shown when the row fails).
    out=$(pm run --rm --preserve-fds 1 $image sh -c 'cat <&3; ls /proc/$$/fd; echo end-of-fds
        for fd in 0 1 2 3; do echo "$fd -> $(readlink /proc/$$/fd/$fd)"; done' 3< $P/fd3) || { echo "$out"; return 1; }
    fds=$(echo "$out" | sed -n '2,/^end-of-fds$/p' | grep -v '^end-of-fds$' | tr '\n' ' ')
    if ! expect_eq "fd 3's content" passed-fd "$(echo "$out" | head -1)" ||
        ! expect_eq "the shell's fds" "0 1 2 3 " "$fds"; then
        echo "$out"
        return 1
    fi
}
# --share-parent=false: podman 4.3 with cgroupfs on cgroup v2 makes a pod cgroup whose device program
# denies every device to everything below it (a plain shell moved there cannot open /dev/null); runc then
# fails to start the infra ("error reopening /dev/null"), and members of either runtime cannot open
# devices. Without the pod cgroup the namespaces are still the infra's.
pod() {
    pm pod create --share-parent=false --name "pod-$rt" > /dev/null || return 1
    pm run -d --pod "pod-$rt" --name "pm-$rt" $image \
        sh -c 'echo > /dev/null && echo devices-ok; sleep 1000' > /dev/null || return 1
    infra=$(podman pod inspect -f '{{.InfraContainerID}}' "pod-$rt")
    ipid=$(field '{{.State.Pid}}' "$infra") mpid=$(field '{{.State.Pid}}' "pm-$rt")
    expect_eq "the infra's init" catatonit "$(cat "/proc/$ipid/comm")" || return 1
    for ns in net ipc uts; do
        expect_eq "$ns namespace" "$(readlink "/proc/$ipid/ns/$ns")" "$(readlink "/proc/$mpid/ns/$ns")" || return 1
    done
    [ "$(readlink "/proc/$mpid/ns/pid")" != "$(readlink "/proc/$ipid/ns/pid")" ] ||
        { echo "the member shares the infra's pid namespace"; return 1; }
    logs=$(pm logs "pm-$rt")
    podman pod rm -f -t 0 "pod-$rt" > /dev/null || return 1
    [ ! -e "/proc/$ipid" ] || { echo "the infra (pid $ipid) still runs"; return 1; }
    expect_eq "the member opened /dev/null" devices-ok "$logs"
}
# podman maps "no such file or directory" in the runtime's error to 127; the text is the runtime's (runc's
# comes through stderr as a logfmt line, its quotes escaped).
nonexistent() {
    out=$(pm run --rm $image /nonexistent 2>&1)
    expect_eq "exit code" 127 "$?" || return 1
    case $rt in
        husk) expect_contains message 'exec: "/nonexistent": stat /nonexistent: no such file or directory' "$out" ;;
        *) expect_contains message '/nonexistent: no such file or directory' "$out" ;;
    esac
}

# Beyond the issue's list: what else podman does with a runtime.
pid_host() { # no pid namespace: podman stops with `kill --all`
    pm run -d --name "h-$rt" --pid host $image sleep 1000 > /dev/null || return 1
    pm stop -t 1 "h-$rt" > /dev/null || return 1
    code=$(field '{{.State.ExitCode}}' "h-$rt")
    pm rm "h-$rt" > /dev/null || return 1
    expect_eq "exit code (SIGTERM)" 143 "$code"
}
kill_signal() {
    pm run -d --name "k-$rt" $image sh -c 'trap "echo got-usr1; exit 3" USR1; sleep 1000 & wait' > /dev/null || return 1
    pm kill -s USR1 "k-$rt" > /dev/null || return 1
    code=$(pm wait "k-$rt") logs=$(pm logs "k-$rt")
    pm rm "k-$rt" > /dev/null || return 1
    expect_eq "exit code" 3 "$code" && expect_eq logs got-usr1 "$logs"
}
uidmap() {
    out=$(pm run --rm --uidmap 0:100000:65536 --gidmap 0:100000:65536 $image sh -c 'cat /proc/self/uid_map; id -u') ||
        { echo "$out"; return 1; }
    expect_eq "uid_map, id" "         0     100000      65536
0" "$out"
}
# --read-only mounts tmpfs on /tmp, /var/tmp and /run, and --tmpfs one more, each with "tmpcopyup": the
# tmpfs starts with a copy of the image's directory (/etc/passwd is still there on the /etc tmpfs), and
# without mode= it keeps the directory's mode.
read_only() {
    out=$(pm run --rm --read-only --tmpfs /etc --user 65534:65534 $image \
        sh -c 'id -u; touch /x 2>&1; touch /tmp/y && echo tmp-writable; head -1 /etc/passwd; grep " /etc " /proc/mounts
            stat -c "etc-mode %a" /etc') || { echo "$out"; return 1; }
    expect_contains "root" "Read-only file system" "$out" && expect_contains "/tmp" "tmp-writable" "$out" &&
        expect_contains "/etc's copy" "root:x:0:0" "$out" && expect_contains "/etc" "tmpfs /etc tmpfs" "$out" &&
        expect_contains "/etc's mode (the image's, not tmpfs's 1777)" "etc-mode 755" "$out"
}
info() {
    out=$(pm info --format '{{.Host.OCIRuntime.Name}}: {{.Host.OCIRuntime.Version}}') || { echo "$out"; return 1; }
    expect_contains "podman info" "$rt: $rt version" "$out"
}
# Whatever a runtime leaves behind: containers, pods, cgroups, conmon or runtime processes, state, mounts.
nothing_left() {
    left=$(podman ps -aq; podman pod ps -q; ls -d $libpod/libpod-* 2>/dev/null; grep " $P/" /proc/mounts
        for dir in /run/runc /run/husk; do [ ! -d $dir ] || find $dir -mindepth 1 -maxdepth 1; done)
    for d in /proc/[0-9]*; do
        case $(tr '\0' ' ' < "$d/cmdline" 2>/dev/null) in
            /usr/local/bin/conmon*|/usr/local/bin/husk*|/usr/local/bin/runc*) left="$left
process ${d#/proc/}: $(tr '\0' ' ' < "$d/cmdline")" ;;
        esac
    done
    [ -z "$left" ] || { echo "left behind: $left"; return 1; }
}

# PODMAN_ROW=FUNCTION [PODMAN_REPEAT=N] (a wrapper sets them, e.g. podman-tty.sh): that row alone, N times in a
# row for each runtime, then what is left behind: a race shows as a failure among the N.
if [ -n "${PODMAN_ROW:-}" ]; then
    for rt in ${PODMAN_RUNTIMES:-runc husk}; do
        i=0
        while [ $i -lt "${PODMAN_REPEAT:-1}" ]; do
            i=$((i + 1))
            row "$PODMAN_ROW #$i" $rt "$PODMAN_ROW"
        done
        row "nothing left behind" $rt nothing_left
    done
    report
    exit
fi

for rt in runc husk; do
    row "run --rm (default seccomp profile)" $rt run_rm
    row "run -d" $rt run_d
    row "exec" $rt exec_plain
    row "exec -it" $rt exec_tty
    row "top" $rt top_
    row "stats --no-stream" $rt stats
    row "pause" $rt pause
    row "unpause" $rt unpause
    row "stop -t 2" $rt stop
    row "start" $rt start
    row "restart" $rt restart
    row "rm -f" $rt rm_f
    row "run -i (stdin)" $rt run_stdin
    row "run -it" $rt run_tty
    row "--memory 64m" $rt memory
    row "update --memory 128m" $rt update_memory
    row "--pids-limit -1" $rt pids_unlimited
    row "--init" $rt init_flag
    row "init + start" $rt init_start
    row "--preserve-fds 1" $rt preserve_fds
    row "pod (shared net/ipc/uts)" $rt pod
    row "/nonexistent: 127" $rt nonexistent
    CONTAINERS_CONF=$P/stderr.conf
    row "run --rm (errors on stderr)" $rt run_rm
    row "/nonexistent: 127 (errors on stderr)" $rt nonexistent
    CONTAINERS_CONF=$P/json.conf
    row "--pid host + stop (kill --all)" $rt pid_host
    row "kill -s USR1" $rt kill_signal
    row "--uidmap" $rt uidmap
    row "--read-only, --tmpfs (tmpcopyup)" $rt read_only
    row "info (runtime --version)" $rt info
    row "nothing left behind" $rt nothing_left
done
report
