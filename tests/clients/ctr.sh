#!/bin/sh
# containerd 1.6 driving runc and husk through containerd-shim-runc-v2, and husk's own shim
# (containerd-shim-husk-v2, the runtime io.containerd.husk.v2), row by row; runs inside the VM (pure cgroup
# v2), from the meson test vm-clients-ctr:
#   tests/clients/in-vm.sh ctr.sh --client containerd --client containerd-shim-runc-v2 --client ctr \
#       --client runc --client script [--build DIR] [--memory MB]
# containerd runs with its root, state and sockets under /tmp, the native snapshotter (the guest's root
# is a tmpfs: no overlay) and no CRI plugin. The runtimes, the columns of the matrix: runc and husk, each
# run by runc's shim with its own --runc-root; husk-shim, `ctr run --runtime io.containerd.husk.v2`, which
# keeps its state under /run/containerd/husk/default. Every row asserts what can be observed: output, exit
# status, the task's status, the cgroup's files, husk's verdict. A few rows check what only a shim does (its
# process, concurrent execs, a forced kill) with runc's shim as the reference, and husk's shim must leave
# nothing behind.
# Calls the shim makes and what they expect: docs/clients.md, "containerd (ctr + containerd-shim-runc-v2)"
# and "husk's own shim (io.containerd.husk.v2)".
# The rows' functions are called through `row`, which shellcheck cannot follow.
# shellcheck disable=SC2317
set -u
# shellcheck source=tests/clients/lib.sh
. ./lib.sh

ctrd=/tmp/ctrd
image=localhost/busybox:latest
export CONTAINERD_ADDRESS=$ctrd/containerd.sock CONTAINERD_SNAPSHOTTER=native
cgroup=/sys/fs/cgroup

mkdir -p $ctrd
cat > $ctrd/config.toml <<EOF
version = 2
root = "$ctrd/root"
state = "$ctrd/state"
# No CRI client exists here (Debian 12 has no crictl); the other snapshotters need what the guest lacks.
disabled_plugins = ["io.containerd.grpc.v1.cri", "io.containerd.snapshotter.v1.aufs",
    "io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.devmapper",
    "io.containerd.snapshotter.v1.zfs", "io.containerd.snapshotter.v1.overlayfs"]
[grpc]
  address = "$ctrd/containerd.sock"
[ttrpc]
  address = "$ctrd/containerd.sock.ttrpc"
[debug]
  address = "$ctrd/debug.sock"
[plugins."io.containerd.snapshotter.v1.native"]
  root_path = "$ctrd/native"
[plugins."io.containerd.monitor.v1.cgroups"]
  no_prometheus = true
EOF

# Every client call is bounded: a hang fails its row instead of eating the harness's timeout. SIGKILL:
# ctr run passes SIGTERM on to the container instead of ending.
ctr() { timeout -s KILL 60 /usr/local/bin/ctr "$@"; }

containerd --config $ctrd/config.toml > $ctrd/containerd.log 2>&1 &
containerd_pid=$!
i=0
until ctr version > /dev/null 2>&1; do
    i=$((i + 1))
    if [ $i -gt 300 ]; then
        echo "containerd did not answer in 30 s:"
        tail -n 30 $ctrd/containerd.log
        exit 1
    fi
    sleep 0.1
done
watch_memory
ctr images import busybox.tar > /dev/null || { echo "ctr images import failed"; exit 1; }

# ---- helpers: the current runtime's options, a task's status and pid, removal ----
# husk-shim: ctr refuses --runc-binary for any runtime but io.containerd.runc.v2, and the shim picks its
# own root.
run_options() {
    case $runtime in
        husk-shim) echo "--runtime io.containerd.husk.v2 --fifo-dir $ctrd/fifo" ;;
        *) echo "--runc-binary /usr/local/bin/$runtime --runc-root $ctrd/root-$runtime --fifo-dir $ctrd/fifo" ;;
    esac
}
# The shim's program, as containerd runs it (its command line begins with it).
shim_binary() { if [ "$runtime" = husk-shim ]; then echo containerd-shim-husk-v2; else echo containerd-shim-runc-v2; fi; }
husk_shim_root=/run/containerd/husk/default
task_field() { # ID COLUMN (2 = PID, 3 = STATUS) of `ctr task ls`
    ctr task ls | awk -v id="$1" -v col="$2" '$1 == id { print $col }'
}
wait_status() { # ID STATUS: polls `ctr task ls` for up to 10 s
    n=0
    while [ "$(task_field "$1" 3)" != "$2" ]; do
        n=$((n + 1))
        [ "$n" -le 100 ] || { echo "$1: status $(task_field "$1" 3), expected $2"; return 1; }
        sleep 0.1
    done
}
remove() { # ID: whatever is left of it, quietly
    ctr task kill -a -s SIGKILL "$1" > /dev/null 2>&1
    ctr task delete -f "$1" > /dev/null 2>&1
    ctr container delete "$1" > /dev/null 2>&1
    return 0
}
# `tty` run in the container printed a pty of the container's own devpts. Through script(1) the output
# has \r\n line ends and holds "^@", the echo of a NUL byte that reaches the container's console (every
# runtime), mostly before the output, sometimes after it (a race: docs/clients.md); and ctr may complain
# that it could not resize the pty of a process that already exited.
expect_pty() { # OUTPUT
    tty=$(printf '%s\n' "$1" | tr -d '\r' | sed 's/\^@//g' | grep -v 'resize pty')
    case $tty in
        /dev/pts/[0-9]|/dev/pts/[0-9][0-9]) return 0 ;;
    esac
    echo "tty printed '$tty', expected /dev/pts/N"
    return 1
}
# husk's own record of why the container stopped (husk.exit.reason), read while the shim still holds it.
# Under runc's shim, the guest's kernel (6.1) has no PIDFD_INFO_EXIT: when the shim reaps init before husk's
# monitor reads the zombie, nothing keeps the status and the monitor records `unknown` (docs/clients.md), so
# either is accepted there; which one it was is printed. husk's own shim is init's parent and knows the
# status it reaped: the reason must be exact.
expect_husk_reason() { # REASON
    case $runtime in
        husk) root=$ctrd/root-husk/default ;;
        husk-shim) root=$husk_shim_root ;;
        *) return 0 ;;
    esac
    out=$(husk --root "$root" state "$id") || return 1
    reason=$(echo "$out" | sed -n 's/.*"reason": "\([a-z-]*\)".*/\1/p')
    echo "husk state: reason $reason"
    [ "$reason" = "$1" ] && return 0
    [ "$runtime" = husk ] && [ "$reason" = unknown ] && return 0
    echo "$out"
    return 1
}

# ---- the rows; $runtime is runc or husk; $id is the current container ----
run_rm() {
    # shellcheck disable=SC2046
    out=$(ctr run --rm $(run_options) "$image" "$id" sh -c 'echo hello; exit 3' 2>&1)
    status=$?
    expect_eq "output" hello "$out" && expect_eq "exit status" 3 "$status"
}

run_stdin() { # one line: ctr never closes the container's stdin at EOF (it would need CloseIO)
    # shellcheck disable=SC2046
    out=$(echo piped | ctr run --rm $(run_options) "$image" "$id" head -n 1 2>&1)
    expect_eq "output" piped "$out"
}

# The shim leaks its ttrpc socket into create as fd 3; only 0-2 may reach the container (3 is ls's own).
run_fds() {
    # shellcheck disable=SC2046
    out=$(ctr run --rm $(run_options) "$image" "$id" ls /proc/self/fd 2>&1)
    expect_eq "fds" "0 1 2 3" "$(echo "$out" | xargs)"
}

run_cgroup() { # --cgroup: an absolute cgroupsPath of the caller's choosing
    # shellcheck disable=SC2046
    out=$(ctr run --rm --cgroup /ctr-test/"$id" $(run_options) "$image" "$id" cat /proc/self/cgroup 2>&1)
    expect_eq "/proc/self/cgroup" "0::/ctr-test/$id" "$out"
}

run_read_only() {
    # shellcheck disable=SC2046
    out=$(ctr run --rm --read-only $(run_options) "$image" "$id" sh -c 'touch /x; echo "touch: $?"' 2>&1)
    expect_contains "output" "Read-only file system" "$out" && expect_contains "touch's status" "touch: 1" "$out"
}

run_privileged() {
    # shellcheck disable=SC2046
    out=$(ctr run --rm --privileged $(run_options) "$image" "$id" grep CapEff /proc/self/status 2>&1)
    expect_contains "output" "CapEff:	000001ffffffffff" "$out"
}

run_seccomp() { # containerd's own default profile
    # shellcheck disable=SC2046
    out=$(ctr run --rm --seccomp $(run_options) "$image" "$id" grep Seccomp: /proc/self/status 2>&1)
    expect_contains "output" "Seccomp:	2" "$out"
}

kill_term() { # ctr task kill: SIGTERM to init alone, which traps it
    # shellcheck disable=SC2046
    ctr run -d $(run_options) "$image" "$id" sh -c 'trap "exit 7" TERM; while :; do sleep 1; done' || return 1
    wait_status "$id" RUNNING || return 1
    ctr task kill "$id" || return 1
    wait_status "$id" STOPPED || return 1
    expect_husk_reason killed || return 1
    out=$(ctr task delete "$id" 2>&1) || { echo "$out"; return 1; }
    expect_contains "ctr task delete" "exit with non-zero exit code 7" "$out"
}

# ctr ARGS (a run or exec with -t) under script(1), which gives ctr the pty it needs, runs
# `tty; exit STATUS` in the container.
expect_tty_and_status() { # STATUS ARGS
    out=$(script -qec "timeout -s KILL 60 ctr $2 sh -c 'tty; exit $1'" /dev/null < /dev/null 2>&1)
    status=$?
    expect_pty "$out" && expect_eq "exit status" "$1" "$status"
}

run_tty() { expect_tty_and_status 4 "run --rm -t $(run_options) $image $id"; }

run_detached() {
    # shellcheck disable=SC2046
    ctr run -d $(run_options) "$image" "$id" sleep 1000 || return 1
    wait_status "$id" RUNNING || return 1
    pid=$(task_field "$id" 2)
    procs=$(cat "$cgroup/default/$id"/cgroup.procs) || return 1
    expect_eq "cgroup.procs of /default/$id" "$pid" "$procs"
}

cpu_weight() { # the default spec's cpu.shares 1024: runc and husk convert it differently
    expect_eq "cpu.weight" "$1" "$(cat "$cgroup/default/$id"/cpu.weight)"
}

task_ps() {
    pid=$(task_field "$id" 2)
    out=$(ctr task ps "$id") || return 1
    echo "$out" | awk 'NR > 1 { print $1 }' | grep -qx "$pid" || { echo "init $pid not in: $out"; return 1; }
}

task_pause() {
    ctr task pause "$id" || return 1
    expect_eq "task status" PAUSED "$(task_field "$id" 3)" &&
        expect_eq "cgroup.freeze" 1 "$(cat "$cgroup/default/$id"/cgroup.freeze)" &&
        expect_contains "cgroup.events" "frozen 1" "$(cat "$cgroup/default/$id"/cgroup.events)"
}

task_resume() {
    ctr task resume "$id" || return 1
    expect_eq "task status" RUNNING "$(task_field "$id" 3)" &&
        expect_eq "cgroup.freeze" 0 "$(cat "$cgroup/default/$id"/cgroup.freeze)" &&
        expect_contains "cgroup.events" "frozen 0" "$(cat "$cgroup/default/$id"/cgroup.events)"
}

task_metrics() { # read by the shim from cgroup v2 (no runtime call)
    out=$(ctr task metrics "$id") || return 1
    echo "$out"
    current=$(echo "$out" | awk '$1 == "pids.current" { print $2 }')
    usage=$(echo "$out" | awk '$1 == "memory.usage" { print $2 }')
    [ "${current:-0}" -ge 1 ] || { echo "pids.current missing or 0"; return 1; }
    [ "${usage:-0}" -gt 0 ] || { echo "memory.usage missing or 0"; return 1; }
}

exec_plain() {
    out=$(ctr task exec --exec-id e1 "$id" sh -c 'echo in exec; exit 5' 2>&1)
    status=$?
    expect_eq "output" "in exec" "$out" && expect_eq "exit status" 5 "$status"
}

exec_cgroup() { # the exec'd process joins the container's cgroup (no cgroup namespace in ctr's spec)
    out=$(ctr task exec --exec-id e3 "$id" cat /proc/self/cgroup 2>&1)
    expect_eq "/proc/self/cgroup" "0::/default/$id" "$out"
}

exec_missing() {
    out=$(ctr task exec --exec-id e4 "$id" /nonexistent 2>&1)
    status=$?
    [ "$status" -ne 0 ] || { echo "ctr task exec succeeded: $out"; return 1; }
    expect_contains "ctr's error" "ctr: OCI runtime exec failed: " "$out" &&
        expect_contains "ctr's error" 'stat /nonexistent: no such file or directory' "$out"
}

exec_tty() { expect_tty_and_status 6 "task exec -t --exec-id e2 $id"; }

kill_all() {
    ctr task kill -a -s SIGKILL "$id" || return 1
    wait_status "$id" STOPPED && expect_husk_reason killed
}

# ctr task delete exits 0 and reports the task's exit status in a warning.
task_delete() {
    out=$(ctr task delete "$id" 2>&1) || { echo "$out"; return 1; }
    expect_contains "ctr task delete" "exit with non-zero exit code 137" "$out" || return 1
    [ ! -e "$cgroup/default/$id" ] || { echo "cgroup /default/$id is still there"; return 1; }
    ctr container delete "$id"
}

memory_limit() {
    # shellcheck disable=SC2046
    ctr run -d --memory-limit 33554432 $(run_options) "$image" "$id" sleep 1000 || return 1
    wait_status "$id" RUNNING || return 1
    expect_eq "memory.max" 33554432 "$(cat "$cgroup/default/$id"/memory.max)" || return 1
    out=$(ctr task metrics "$id") || return 1
    limit=$(echo "$out" | awk '$1 == "memory.usage_limit" { print $2 }')
    expect_eq "memory.usage_limit in ctr task metrics" 33554432 "$limit" || { echo "$out"; return 1; }
}

oom() { # dd's 64 MiB buffer, filled by read(), against a 32 MiB limit
    ctr events > "$ctrd/events-$id" 2>&1 &
    events=$!
    # shellcheck disable=SC2046
    ctr run -d --memory-limit 33554432 $(run_options) "$image" "$id" dd if=/dev/zero of=/dev/null bs=64M count=1 || return 1
    wait_status "$id" STOPPED
    stopped=$?
    kill "$events"
    [ "$stopped" = 0 ] || return 1
    oom_kills=$(awk '$1 == "oom_kill" { print $2 }' "$cgroup/default/$id"/memory.events)
    [ "${oom_kills:-0}" -ge 1 ] || { echo "memory.events:"; cat "$cgroup/default/$id"/memory.events; return 1; }
    expect_husk_reason oom || return 1
    out=$(ctr task delete "$id" 2>&1) || { echo "$out"; return 1; }
    expect_contains "ctr task delete" "exit with non-zero exit code 137" "$out" || return 1
    grep -q "/tasks/oom.*$id" "$ctrd/events-$id" || { echo "no /tasks/oom event for $id:"; cat "$ctrd/events-$id"; return 1; }
}

# ---- rows of what a shim does itself (runc's shim the reference) ----
# ctr run -d returns once the shim started the task: the first `ctr task ls` says RUNNING, and init is a
# child of the shim (its subreaper), not of containerd or of a runtime process.
task_ls_running() {
    # shellcheck disable=SC2046
    ctr run -d $(run_options) "$image" "$id" sleep 1000 || return 1
    listed=$(ctr task ls) || return 1
    expect_eq "status in ctr task ls" RUNNING "$(echo "$listed" | awk -v id="$id" '$1 == id { print $3 }')" ||
        { echo "$listed"; return 1; }
    pid=$(echo "$listed" | awk -v id="$id" '$1 == id { print $2 }')
    [ "${pid:-0}" -gt 0 ] || { echo "no pid for $id in: $listed"; return 1; }
    # Field 4 of /proc/PID/stat, counted after the command name in parentheses.
    ppid=$(sed 's/.*) //' "/proc/$pid/stat" | awk '{ print $2 }')
    parent=$(tr '\0' ' ' < "/proc/$ppid/cmdline")
    expect_contains "init's parent ($ppid)" "$(shim_binary)" "$parent"
}

# Two `ctr task exec` at once into one container: each its own output and exit status.
exec_concurrent() {
    ctr task exec --exec-id c1 "$id" sh -c 'sleep 1; echo first; exit 11' > "$ctrd/exec-c1" 2>&1 &
    first=$!
    ctr task exec --exec-id c2 "$id" sh -c 'sleep 1; echo second; exit 12' > "$ctrd/exec-c2" 2>&1 &
    second=$!
    # Each ctr is bounded by its own timeout (ctr above): the waits end.
    wait "$first"
    first_status=$?
    wait "$second"
    second_status=$?
    expect_eq "first exec's output" first "$(cat "$ctrd/exec-c1")" &&
        expect_eq "first exec's status" 11 "$first_status" &&
        expect_eq "second exec's output" second "$(cat "$ctrd/exec-c2")" &&
        expect_eq "second exec's status" 12 "$second_status"
}

# ctr run --rm of an init that ignores SIGTERM: `ctr task kill` (SIGTERM) leaves it running, `-s SIGKILL`
# ends it; ctr run exits 137 and removes the task and the container.
kill_ignored_term() {
    # shellcheck disable=SC2046
    ctr run --rm $(run_options) "$image" "$id" sh -c 'trap "" TERM; while :; do sleep 1; done' \
        > "$ctrd/run-$id" 2>&1 &
    run=$!
    # RUNNING, while ctr run still runs: a run that failed ends the row at once.
    n=0
    until [ "$(task_field "$id" 3)" = RUNNING ] || ! kill -0 "$run" 2>/dev/null || [ "$n" -ge 100 ]; do
        n=$((n + 1))
        sleep 0.1
    done
    if expect_eq "status" RUNNING "$(task_field "$id" 3)" && ctr task kill "$id" && sleep 2 &&
        expect_eq "status 2 s after SIGTERM" RUNNING "$(task_field "$id" 3)"; then
        ctr task kill -s SIGKILL "$id"
        killed=$?
    else
        killed=1
        ctr task kill -s SIGKILL "$id"
    fi
    wait "$run"
    status=$?
    [ "$killed" = 0 ] || { echo "ctr run:"; cat "$ctrd/run-$id"; return 1; }
    expect_eq "ctr run's exit status" 137 "$status" || { cat "$ctrd/run-$id"; return 1; }
    [ -z "$(task_field "$id" 3)" ] || { echo "$id is still in ctr task ls"; return 1; }
    if ctr container ls -q | grep -qx "$id"; then echo "$id is still in ctr container ls"; return 1; fi
}

# What husk's shim may have left once every row removed its container, after up to 10 s (the shim exits
# after the last delete): its processes, cgroups of husk-shim ids, mounts under containerd's state (the
# bundles' rootfs), entries of its state root, containerd's record of husk-shim ids.
shim_leftovers() {
    processes_matching '*containerd-shim-husk-v2*'
    ls -d "$cgroup"/default/husk-shim-* "$cgroup"/ctr-test/husk-shim-* 2>/dev/null
    awk -v state="$ctrd/state/" 'index($5, state) == 1 { print "mount: " $5 }' /proc/self/mountinfo
    [ ! -d "$husk_shim_root" ] || find "$husk_shim_root" -mindepth 1 -maxdepth 1
    ctr task ls -q 2>&1 | grep '^husk-shim-'
    ctr container ls -q 2>&1 | grep '^husk-shim-'
}
nothing_left() {
    n=0
    while left=$(shim_leftovers); [ -n "$left" ]; do
        n=$((n + 1))
        [ "$n" -le 20 ] || { echo "left behind after 10 s:"; echo "$left"; return 1; }
        sleep 0.5
    done
}

missing_binary() {
    # shellcheck disable=SC2046
    out=$(ctr run --rm $(run_options) "$image" "$id" /nonexistent 2>&1)
    status=$?
    [ "$status" -ne 0 ] || { echo "ctr run succeeded: $out"; return 1; }
    expect_contains "ctr's error" "ctr: failed to create shim task: OCI runtime create failed: " "$out" &&
        expect_contains "ctr's error" 'stat /nonexistent: no such file or directory' "$out"
}

for runtime in runc husk husk-shim; do
    id=$runtime-rm;  row "run --rm: output, exit status" $runtime run_rm; remove "$id"
    id=$runtime-tty; row "run --rm -t: a pty, exit status" $runtime run_tty; remove "$id"
    id=$runtime-in;  row "run --rm: stdin from a pipe" $runtime run_stdin; remove "$id"
    id=$runtime-fds; row "run --rm: only fds 0-2 reach the container" $runtime run_fds; remove "$id"
    id=$runtime-cg;  row "run --rm --cgroup /ctr-test/ID: /proc/self/cgroup" $runtime run_cgroup; remove "$id"
    id=$runtime-ro;  row "run --rm --read-only: EROFS" $runtime run_read_only; remove "$id"
    id=$runtime-pr;  row "run --rm --privileged: every capability" $runtime run_privileged; remove "$id"
    id=$runtime-sc;  row "run --rm --seccomp: containerd's default profile" $runtime run_seccomp; remove "$id"
    id=$runtime-term; row "task kill: SIGTERM to init, its exit status" $runtime kill_term; remove "$id"
    id=$runtime-d
    row "run -d: RUNNING, init in /default/ID" $runtime run_detached
    if [ $runtime = runc ]; then weight=39; else weight=100; fi
    row "default cpu.shares 1024: cpu.weight (runc 39, husk 100)" $runtime cpu_weight $weight
    row "task ps: lists init" $runtime task_ps
    row "task pause: PAUSED, cgroup frozen" $runtime task_pause
    row "task resume: RUNNING, cgroup thawed" $runtime task_resume
    row "task metrics: pids and memory" $runtime task_metrics
    row "task exec: output, exit status" $runtime exec_plain
    [ $runtime = husk ] || row "task exec twice at once: each its output, exit status" $runtime exec_concurrent
    row "task exec -t: a pty, exit status" $runtime exec_tty
    row "task exec: joins the container's cgroup" $runtime exec_cgroup
    row "task exec of a missing binary: ctr's error text" $runtime exec_missing
    row "task kill -a -s SIGKILL: STOPPED" $runtime kill_all
    row "task delete: exit 137, cgroup gone" $runtime task_delete
    remove "$id"
    id=$runtime-mem; row "--memory-limit: memory.max, metrics" $runtime memory_limit; remove "$id"
    id=$runtime-oom; row "--memory-limit: OOM kill, exit 137, memory.events, /tasks/oom" $runtime oom; remove "$id"
    id=$runtime-nx;  row "missing binary: ctr's error text" $runtime missing_binary; remove "$id"
    # What a shim does itself: husk's shim, with runc's as the reference (husk behind runc's shim adds
    # nothing there).
    if [ $runtime != husk ]; then
        id=$runtime-ls; row "run -d, then task ls: RUNNING at once, init a child of the shim" $runtime task_ls_running
        remove "$id"
        id=$runtime-ign
        row "run --rm, init ignores SIGTERM: task kill leaves it RUNNING, -s SIGKILL ends it (137), removed" \
            $runtime kill_ignored_term
        remove "$id"
    fi
    [ $runtime != husk-shim ] || row "husk's shim left nothing: processes, cgroups, mounts, state" $runtime nothing_left
done

status=0
report || status=1
kill $containerd_pid
exit "$status"
