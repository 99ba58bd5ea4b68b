#!/bin/sh
# Benchmark (not a test): the figures husk's performance is held to, each measured side by side in one run
# (timings A/B interleaved), printed as ONE table: figure | floor | runc | crun (VM) | husk | ratio | goal, then
# a line naming the date, the machine and husk's build. Checks nothing but that every run worked.
#   tests/bench.sh [-n N] [-V] [-c] [-s] [HUSK_BINARY]
#   -n N  runs per timing (default 50; 20 at most for the CPU budget and in the VMs)
#   -V    skip the VM parts (tests/vm/run-in-vm.sh + tests/vm/bench/bench-guest.sh: pure cgroup v2, TCG; and
#         the containerd part, tests/vm/bench/bench-shim.sh, in a second VM)
#   -c    only the CPU budget's overshoot (host, then VM unless -V)
#   -s    only the containerd part in the VM (runc's shim + runc, runc's shim + husk, husk's shim)
# husk comes from HUSK_BINARY or build/src/cli/husk; the VM takes the probe from $HUSK_PROBE or
# build/tests/probe and caches its kernel in build/. runc runs through tests/runc-in-v2.sh (a private mount
# namespace with a pure cgroup v2 view), so it never touches the host's cgroup v1 hierarchies; its figures
# include that wrapper (a row of the table says how much).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
runs=50
vm=yes
cpu_only=no
shim_only=no
while getopts n:Vcs opt; do
    case $opt in
        n) runs=$OPTARG ;;
        V) vm=no ;;
        c) cpu_only=yes ;;
        s) shim_only=yes ;;
        *) echo "usage: $0 [-n N] [-V] [-c] [-s] [HUSK_BINARY]" >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
if [ "$shim_only" = yes ]; then
    { [ "$vm" = yes ] && [ "$cpu_only" = no ]; } || { echo "bench: -s runs only a VM part: not with -V or -c" >&2; exit 2; }
fi
# host: the parts on this machine (and the first VM's); shim: the containerd part in its own VM.
host=yes shim=$vm
[ "$shim_only" = no ] || host=no
[ "$cpu_only" = no ] || shim=no
husk=${1:-${HUSK_BINARY:-$top/build/src/cli/husk}}
[ -x "$husk" ] || { echo "bench: husk binary not found at $husk (build it, or pass its path)" >&2; exit 1; }
husk=$(cd "$(dirname "$husk")" && pwd)/$(basename "$husk")
small=$(( runs < 20 ? runs : 20 ))
bench_start=$(date +%s)
# What is measured: the commit of its checkout as the bench starts, and when the binary was built (it may be older).
commit=$(git -C "$(dirname "$husk")" describe --always --dirty 2>/dev/null || echo unknown)
built=$(date -u -r "$husk" '+%Y-%m-%d %H:%M')

# Tools: runc and crun from Debian, python3 for wait4's rusage, jq for the configs, busybox for the rootfs.
missing=
command -v runc >/dev/null 2>&1 || missing="$missing runc"
[ -x /usr/bin/python3 ] || missing="$missing python3-minimal"
command -v jq >/dev/null 2>&1 || missing="$missing jq"
[ -x /bin/busybox ] || missing="$missing busybox-static"
[ "$vm" = no ] || command -v crun >/dev/null 2>&1 || missing="$missing crun"
command -v stress-ng >/dev/null 2>&1 || missing="$missing stress-ng"
command -v bwrap >/dev/null 2>&1 || missing="$missing bubblewrap"
if [ -n "$missing" ]; then
    echo "bench: installing$missing" >&2
    # shellcheck disable=SC2086 # (a list of packages)
    apt-get install -y --no-install-recommends $missing >/dev/null
fi
# The containerd part: containerd (with ctr and runc's shim), and what tests/clients/cri-prepare.sh needs for
# its CRI client (grpc, the stub generator) and the pause image (catatonit).
if [ "$shim" = yes ]; then
    # shellcheck source=tests/install-missing.sh
    . "$here/install-missing.sh"
    install_missing containerd catatonit python3-grpcio python3-grpc-tools python3-protobuf >/dev/null
fi
rootfs=$top/bundles/busybox/rootfs
[ -x "$rootfs/usr/bin/busybox" ] || "$top/bundles/build-rootfs.sh" "$rootfs" >/dev/null

# Everything lives in $work; the roots below are the only state dirs used, and cleanup() deletes every
# container in them (and its cgroup), stops stress-ng, and gives back what runc enabled in subtree_control.
work=$(mktemp -d /tmp/husk-bench.XXXXXX)
# The state roots on a tmpfs, as /run is on a usual host (runc's and husk's defaults live there): on a disk,
# husk's fsync of each record (docs/ARCHITECTURE.md, "State": tmp + fsync + rename) costs milliseconds that runc does
# not pay.
states=$(mktemp -d /dev/shm/husk-bench.XXXXXX)
hroot=$states/husk-root rroot=$states/runc-root hog='' bg_pids='' bench_user=''
cgroup2=$(grep ' - cgroup2 ' /proc/self/mountinfo | head -n 1 | cut -d' ' -f5)
controllers_before=$(cat "$cgroup2/cgroup.subtree_control" 2>/dev/null || true)
h() { "$husk" --root "$hroot" "$@"; }
r() { "$here/runc-in-v2.sh" --root "$rroot" "$@"; }
cleanup() {
    trap - EXIT INT TERM
    [ -z "$hog" ] || { kill -INT "$hog" 2>/dev/null; wait "$hog" 2>/dev/null; } || true
    for pid in $bg_pids; do kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; done || true
    for id in $(h list -q 2>/dev/null); do h delete --force "$id" >/dev/null 2>&1 || true; done
    for id in $(r list -q 2>/dev/null); do r delete --force "$id" >/dev/null 2>&1 || true; done
    for c in $(cat "$cgroup2/cgroup.subtree_control" 2>/dev/null || true); do
        case " $controllers_before " in
            *" $c "*) ;;
            *) echo "-$c" > "$cgroup2/cgroup.subtree_control" 2>/dev/null || true ;;
        esac
    done
    rm -rf --one-file-system "$work" "$states"
    [ -z "$bench_user" ] || userdel "$bench_user" 2>/dev/null || true
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Bundles: /bin/true (the runs), sleep (live containers), dd (the output pump), a busy loop (CPU budget).
bundle() { # NAME JQ_FILTER
    mkdir -p "$work/$1"
    jq --arg rootfs "$rootfs" ".process.terminal = false | .root.path = \$rootfs | $2" \
        "$top/bundles/busybox/config.json" > "$work/$1/config.json"
}
bundle true '.process.args = ["/bin/true"]'
bundle sleep '.process.args = ["/bin/sleep", "600"]'
bundle flood '.process.args = ["/bin/dd", "if=/dev/zero", "bs=65536", "count=16384"]'  # 1 GiB
bundle busy '.process.args = ["/bin/sh", "-c", "while :; do :; done"]'

# timed NAME COMMAND...: runs COMMAND once (stdin and stdout /dev/null) and appends "WALL_US CPU_US" to
# $work/NAME.t: the wall time from spawn to reaping, and the user+sys CPU time of COMMAND and of every
# descendant reaped below it (wait4's rusage in microseconds; GNU time prints only 10 ms steps).
timed() {
    name=$1
    shift
    /usr/bin/python3 - "$@" >>"$work/$name.t" 2>"$work/err" <<'EOF' || { echo "bench: $name failed: $*" >&2; cat "$work/err" >&2; exit 1; }
import os, signal, sys, time
io = [(os.POSIX_SPAWN_OPEN, 0, "/dev/null", os.O_RDONLY, 0), (os.POSIX_SPAWN_OPEN, 1, "/dev/null", os.O_WRONLY, 0)]
t0 = time.monotonic_ns()
pid = os.posix_spawnp(sys.argv[1], sys.argv[1:], os.environ, file_actions=io, setsigdef=[signal.SIGPIPE])
_, status, ru = os.wait4(pid, 0)
t1 = time.monotonic_ns()
if status:
    sys.exit("exit status %d" % status)
print((t1 - t0) // 1000, round((ru.ru_utime + ru.ru_stime) * 1e6))
EOF
}
# med NAME FIELD: the median of column FIELD (1 wall, 2 CPU) of $work/NAME.t, in ms; "-" when not measured.
med() {
    [ -s "$work/$1.t" ] || { echo -; return; }
    awk -v f="$2" '{ print $f }' "$work/$1.t" | sort -n |
        awk '{ v[NR] = $1 } END { printf "%.2f", ((NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) / 1000 }'
}
# row FIGURE FLOOR RUNC CRUN HUSK RATIO GOAL: one line of the table ("-" for an empty cell).
row() { printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$@" >> "$work/table"; }
# ratio A B: A/B, or "-" when either is missing.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || b == "-" || b == 0) print "-"; else printf "%.2f", a / b }'; }
# seq_ids PREFIX COUNT: PREFIX-1 ... PREFIX-COUNT
seq_ids() { awk -v p="$1" -v n="$2" 'BEGIN { for (i = 1; i <= n; i++) print p "-" i }'; }
stopped() { "$@" 2>/dev/null | grep -q '"status": *"stopped"'; }
# Two loops run at once: `LOOP ... & started` each, then `wait_bg MESSAGE` ends the bench with MESSAGE
# if either failed (cleanup() stops them on the way out).
started() { bg_pids="$bg_pids $!"; }
wait_bg() {
    ok=yes
    for pid in $bg_pids; do wait "$pid" || ok=no; done
    bg_pids=
    [ "$ok" = yes ] || { echo "bench: $1" >&2; exit 1; }
}

if [ "$host" = yes ] && [ "$cpu_only" = no ]; then
    # 1. `run` of /bin/true: the floor (the same namespaces, nothing else), runc, husk; `--version` of husk and
    # runc next to /bin/true (the cost of starting the binary), and the wrapper runc runs through.
    i=0
    while [ "$i" -lt "$runs" ]; do
        i=$((i + 1))
        timed floor unshare -fpmiun --mount-proc true
        timed runc "$here/runc-in-v2.sh" --root "$rroot" run --bundle "$work/true" "run-runc-$i"
        timed husk "$husk" --root "$hroot" run --bundle "$work/true" "run-husk-$i"
        timed true /bin/true
        timed version "$husk" --version
        timed runc-version runc --version
        timed wrapped-version "$here/runc-in-v2.sh" --version
    done
    row "\`run\` /bin/true, CPU ms (user+sys, whole tree)" "$(med floor 2)" "$(med runc 2)" - "$(med husk 2)" \
        "$(ratio "$(med husk 2)" "$(med floor 2)")" "<= 2.0 (husk/floor)"
    row "\`run\` /bin/true, wall ms" "$(med floor 1)" "$(med runc 1)" - "$(med husk 1)" \
        "$(ratio "$(med husk 1)" "$(med runc 1)")" "<= 0.15 (husk/runc)"
    row "\`--version\`, CPU ms (floor: /bin/true)" "$(med true 2)" "$(med runc-version 2)" - "$(med version 2)" \
        "$(ratio "$(med version 2)" "$(med true 2)")" "-"
    # The wrapper's own cost: `runc-in-v2.sh --version` minus `runc --version` (unshare, sh, a mount, and the
    # mount namespace's teardown: mostly wall time, little CPU).
    minus() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a - b }'; }
    row "  in runc's figures: tests/runc-in-v2.sh, wall / CPU ms" - \
        "$(minus "$(med wrapped-version 1)" "$(med runc-version 1)") / $(minus "$(med wrapped-version 2)" "$(med runc-version 2)")" \
        - - - "-"

    # 2. create + start + state until stopped + delete of /bin/true (containerd's sequence), by 2 callers at
    # once, $small cycles each, husk and runc in turn, twice: cycles per second over both rounds.
    cycles() { # RUNTIME_FUNCTION CALLER ROUND
        for id in $(seq_ids "cyc-$1-$2-$3" "$small"); do
            $1 create --bundle "$work/true" "$id" >/dev/null 2>&1 </dev/null
            $1 start "$id"
            until stopped "$1" state "$id"; do :; done
            $1 delete "$id"
        done
    }
    for round in 1 2; do
        for rt in h r; do
            start=$(date +%s%N)
            cycles $rt 1 $round & started
            cycles $rt 2 $round & started
            wait_bg "the create/start/state/delete cycles ($rt) failed"
            echo $(($(date +%s%N) - start)) >> "$work/cycles-$rt.ns"
        done
    done
    per_s() { awk -v n=$((4 * small)) '{ ns += $1 } END { printf "%.1f", n / (ns / 1e9) }' "$work/cycles-$1.ns"; }
    row "create, start, state, delete: cycles/s, 2 callers" - "$(per_s r)" - "$(per_s h)" \
        "$(ratio "$(per_s h)" "$(per_s r)")" ">= 3 (husk/runc)"

    # 3. 1000 stopped containers (`run --keep`: the record and its empty cgroup stay), then `state` of one and
    # `list`, interleaved with `husk --version` (state's yardstick).
    make_records() { for id in $(seq_ids "rec-$1" 500); do h run --keep --bundle "$work/true" "$id" >/dev/null </dev/null; done; }
    make_records a & started
    make_records b & started
    wait_bg "making 1000 stopped containers failed"
    i=0
    while [ "$i" -lt "$runs" ]; do
        i=$((i + 1))
        timed version1000 "$husk" --version
        timed state "$husk" --root "$hroot" state rec-a-250
        timed list "$husk" --root "$hroot" list
    done
    row "\`state ID\` with 1000 containers, wall ms (floor: --version)" "$(med version1000 1)" - - "$(med state 1)" \
        "$(ratio "$(med state 1)" "$(med version1000 1)")" "<= 1.5 (husk/floor)"
    row "\`list\` with 1000 containers, wall ms" - - - "$(med list 1)" - "<= 25 ms"
    drop_records() { for id in $(seq_ids "rec-$1" 500); do h delete "$id"; done; }
    drop_records a & started
    drop_records b & started
    wait_bg "deleting the stopped containers failed"

    # 4. The monitor (docs/ARCHITECTURE.md, "The monitor") of 100 live containers (sleep 600), every other one with
    # the output pump, a wall-time and a CPU-time limit: the average Private_Dirty of its smaps_rollup, and the CPU
    # ticks all of them use over 2 s. `sync` first: a freshly linked binary's pages count as dirty until written back.
    sync
    for id in $(seq_ids live 100); do
        case $id in
            *[13579]) h create --bundle "$work/sleep" "$id" >/dev/null 2>&1 </dev/null ;;
            *) h create --bundle "$work/sleep" --output-limit 1GiB --timeout 1h --cpu-limit 1h "$id" >/dev/null 2>&1 </dev/null ;;
        esac
        h start "$id"
        echo "$id $(jq -r .monitorPid "$hroot/$id/state.json")" >> "$work/monitors"
    done
    sleep 0.5
    ticks() { while read -r _ pid; do awk '{ print $14 + $15 }' "/proc/$pid/stat"; done < "$work/monitors" | awk '{ t += $1 } END { print t }'; }
    before=$(ticks)
    sleep 2
    after=$(ticks)
    private() { # PATTERN: average Private_Dirty KiB of the monitors whose id matches
        while read -r id pid; do
            # shellcheck disable=SC2254 # (PATTERN is a pattern)
            case $id in $1) awk '/^Private_Dirty:/ { print $2 }' "/proc/$pid/smaps_rollup" ;; esac
        done < "$work/monitors" | awk '{ s += $1; n++ } END { printf "%.0f", s / n }'
    }
    row "monitor Private_Dirty KiB, 100 live: plain (50)" - - - "$(private '*[13579]')" - "<= 512"
    row "  with --output-limit --timeout --cpu-limit (50)" - - - "$(private '*[02468]')" - "<= 512"
    row "  CPU ticks of all 100 monitors over 2 s" - - - $((after - before)) - "-"
    for id in $(seq_ids live 100); do h delete --force "$id"; done

    # 5. Output throughput: 1 GiB from busybox dd (64 KiB writes) through a pipe to cat, without a cap (the
    # container writes the pipe) and with one (the monitor splices), interleaved, 5 times each (it swings
    # with the machine's load): MiB/s of the median run.
    flood() { # NAME ID [FLAGS...]: appends "WALL_US 0" to $work/NAME.t
        name=$1 id=$2
        shift 2
        start=$(date +%s%N)
        h run --bundle "$work/flood" "$@" "$id" 2>/dev/null | cat > /dev/null
        echo "$((($(date +%s%N) - start) / 1000)) 0" >> "$work/$name.t"
    }
    for round in 1 2 3 4 5; do
        flood direct "flood-direct-$round"
        flood capped "flood-capped-$round" --output-limit 2GiB
    done
    mibs() { awk -v ms="$(med "$1" 1)" 'BEGIN { printf "%.0f", 1024 / (ms / 1000) }'; }
    row "output MiB/s to a pipe, capped (floor: no cap)" "$(mibs direct)" - - "$(mibs capped)" \
        "$(ratio "$(mibs capped)" "$(mibs direct)")" ">= 0.9 (husk/floor)"
fi

# 5b. Without root (docs/rootless.md): `husk sandbox` and bubblewrap with the same isolation (every namespace,
# user 65534, read-only /usr, tmpfs /tmp, /proc, /dev, die-with-parent, no capabilities), both run by an
# unprivileged user made for the bench (removed at the end), A/B interleaved. husk adds its seccomp profile,
# no_new_privs, husk-init and the verdict on top; its state root is on the tmpfs as above.
if [ "$host" = yes ] && [ "$cpu_only" = no ]; then
    bench_user=husk-bench-$$
    useradd --system --no-create-home --shell /usr/sbin/nologin --user-group "$bench_user"
    uroot=$states/user-root
    chmod 0711 "$states"  # mktemp made it 0700: the user reaches its own root inside
    mkdir -p "$uroot" && chown "$bench_user:" "$uroot" && chmod 0700 "$uroot"
    as_user="setpriv --reuid $bench_user --regid $bench_user --clear-groups --"
    bwrap_argv() {
        echo bwrap --unshare-all --uid 65534 --gid 65534 --ro-bind /usr /usr --symlink usr/bin /bin \
            --symlink usr/lib /lib --symlink usr/lib64 /lib64 --proc /proc --dev /dev --tmpfs /tmp \
            --die-with-parent --cap-drop ALL --
    }
    i=0
    while [ "$i" -lt "$runs" ]; do
        i=$((i + 1))
        # shellcheck disable=SC2046,SC2086 # (setpriv's and bwrap's words)
        timed bwrap-true $as_user $(bwrap_argv) /bin/true
        # shellcheck disable=SC2086
        timed sandbox-true $as_user "$husk" --root "$uroot" sandbox -- /bin/true
        # shellcheck disable=SC2046,SC2086
        timed bwrap-py $as_user $(bwrap_argv) python3 -c 'print(1)'
        # shellcheck disable=SC2086
        timed sandbox-py $as_user "$husk" --root "$uroot" sandbox -- python3 -c 'print(1)'
    done
    row "without root: \`sandbox\` /bin/true, wall ms (floor: bwrap)" "$(med bwrap-true 1)" - - "$(med sandbox-true 1)" \
        "$(ratio "$(med sandbox-true 1)" "$(med bwrap-true 1)")" "<= 1.0 (husk/bwrap)"
    row "without root: \`sandbox\` python3 print(1), wall ms (floor: bwrap)" "$(med bwrap-py 1)" - - "$(med sandbox-py 1)" \
        "$(ratio "$(med sandbox-py 1)" "$(med bwrap-py 1)")" "<= 1.0 (husk/bwrap)"
fi

# 5c. User-space instructions (tests/icount: every process and thread single-stepped, so the figure does not
# swing with the machine's load; this kernel offers no hardware counter): husk's own, from its first
# instruction to its last, for `run` of /bin/true (root) and `sandbox -- /bin/true` (the bench user), next to
# bwrap's for the same sandbox. Only the lines of icount naming the tool's own executables count: husk's
# binary, "/" (husk re-executed from its read-only mount) and husk-init's sealed copy, or bwrap; the
# workload's (busybox, /bin/true and its loader), setpriv's and icount's own are left out. A minute or two each.
if [ "$host" = yes ] && [ "$cpu_only" = no ]; then
    icount=${HUSK_ICOUNT:-$(dirname "$(dirname "$(dirname "$husk")")")/tests/icount}
    [ -x "$icount" ] || { echo "bench: tests/icount not found at $icount (build it, or set HUSK_ICOUNT)" >&2; exit 1; }
    instructions() { # NAME PATH_REGEX COMMAND...: appends "THOUSANDS 0" to $work/NAME.t
        name=$1 keep=$2
        shift 2
        "$icount" "$@" 2>"$work/icount.out" >/dev/null </dev/null || { cat "$work/icount.out" >&2; echo "bench: icount $*" >&2; exit 1; }
        awk -v keep="$keep" '$1 == "icount:" && $2 ~ /^[0-9]+$/ {
                path = $0; sub(/^icount: [0-9]+ /, "", path); if (path ~ keep) sum += $2 }
            END { printf "%d 0\n", sum / 1000 }' "$work/icount.out" >> "$work/$name.t"
    }
    husk_exe="^(/|$husk|/memfd:husk.*)\$"
    instructions icount-run "$husk_exe" "$husk" --root "$hroot" run --bundle "$work/true" icount-run
    # shellcheck disable=SC2086 # (setpriv's words)
    instructions icount-sandbox "$husk_exe" $as_user "$husk" --root "$uroot" sandbox -- /bin/true
    # shellcheck disable=SC2046,SC2086
    instructions icount-bwrap "^$(command -v bwrap)\$" $as_user $(bwrap_argv) /bin/true
    thousands() { awk '{ print $1 }' "$work/$1.t"; }
    row "user-space instructions, thousands: \`run\` /bin/true" - - - "$(thousands icount-run)" - "<= 1090 (3270 / 3)"
    row "  without root: \`sandbox\` /bin/true (floor: bwrap)" "$(thousands icount-bwrap)" - - \
        "$(thousands icount-sandbox)" "$(ratio "$(thousands icount-sandbox)" "$(thousands icount-bwrap)")" "<= 5660 (16980 / 3)"
fi

# 6. The CPU budget's precision (run.husk.cpu-limit): how far a busy loop gets past a 300 ms budget before
# the kill lands, $small runs, idle and beside `stress-ng --cpu 4`. The budget counts from exec, so the
# cgroup's usage_usec after create (init's setup) is subtracted. On this host the budget rests on the
# monitor's timer alone (the cpu controller is bound to cgroup v1 on a hybrid host): husk(8) LIMITS bounds
# the overshoot by the CPUs the container runs on times (10 ms + the monitor's wakeup latency).
overshoot() { # LABEL -> one line per run in $work/cpu-LABEL.t: "0 microseconds past the budget"
    for id in $(seq_ids "cpu-$1" "$small"); do
        h create --bundle "$work/busy" --cpu-limit 300ms "$id" >/dev/null 2>&1 </dev/null
        setup=$(awk '$1 == "usage_usec" { print $2 }' "$cgroup2$(h state "$id" | jq -r .husk.cgroupPath)/cpu.stat")
        h start "$id"
        until stopped h state "$id"; do sleep 0.05; done
        h delete --print-state "$id" > "$work/cpu-state"
        if [ "$(jq -r .husk.exit.reason "$work/cpu-state")" != cpu-limit ]; then
            echo "bench: $id did not stop at its CPU budget:" >&2
            cat "$work/cpu-state" >&2
            exit 1
        fi
        echo "0 $(jq ".husk.usage.cpuUsec - $setup - 300000" "$work/cpu-state")" >> "$work/cpu-$1.t"
    done
}
peak() { awk '{ print $2 }' "$work/$1.t" | sort -n | tail -n 1 | awk '{ printf "%.2f", $1 / 1000 }'; }
if [ "$host" = yes ]; then
    overshoot idle
    stress-ng --cpu 4 --timeout 600s >/dev/null 2>&1 &
    hog=$!
    sleep 1
    overshoot stress
    kill -INT "$hog"  # stress-ng stops its workers on SIGINT (stress-ng(1))
    wait "$hog" 2>/dev/null || true
    hog=
    bound="<= $(nproc) x (10 ms + wakeup)"
    row "CPU budget 300 ms overshoot ms, idle (median / max)" - - - "$(med cpu-idle 2) / $(peak cpu-idle)" - "$bound"
    row "  the same beside stress-ng --cpu 4" - - - "$(med cpu-stress 2) / $(peak cpu-stress)" - "$bound"
fi

# 7. The VM (TCG, pure cgroup v2): bench-guest.sh prints BENCHROW lines (microseconds); only lines of
# exactly that shape count, anything else the guest says goes to stderr.
host_seconds=$(($(date +%s) - bench_start))
# shellcheck disable=SC2046 # (set -- $(vmrow KEY): numbers or "-", padded with "-" when a line is missing)
if [ "$vm" = yes ] && [ "$host" = yes ]; then
    "$here/vm/install-deps.sh" >/dev/null
    vm_start=$(date +%s)
    HUSK_BINARY=$husk HUSK_PROBE=${HUSK_PROBE:-$top/build/tests/probe} "$here/vm/run-in-vm.sh" --build "$top/build" \
        --timeout 1800 --stage "$(command -v runc)" --stage "$(command -v crun)" --stage "$(command -v stress-ng)" \
        --files "$here/vm/bench" -- sh bench-guest.sh "$small" "$([ "$cpu_only" = yes ] && echo cpu || echo all)" \
        > "$work/vm.out" || { cat "$work/vm.out" >&2; echo "bench: the VM part failed" >&2; exit 1; }
    vm_seconds=$(($(date +%s) - vm_start))
    num='(-|-?[0-9]+)'
    grep -Ev "^BENCHROW vm-[a-z-]+( $num)+\$" "$work/vm.out" >&2 || true
    vmrow() { # KEY: the fields after the key, in ms
        grep -E "^BENCHROW $1( $num)+\$" "$work/vm.out" | tail -n 1 |
            awk '{ for (i = 3; i <= NF; i++) printf "%s%s", (i > 3 ? " " : ""), ($i == "-" ? "-" : sprintf("%.1f", $i / 1000)) }'
    }
    if [ "$cpu_only" = no ]; then
        set -- $(vmrow vm-run) - - -
        row "VM: \`run\` with memory.max 64 MiB, wall ms" - "$1" "$2" "$3" "$(ratio "$3" "$2")" "<= 0.7 (husk/crun)"
        set -- $(vmrow vm-csd) - - -
        row "VM: create, start, state, delete, wall ms" - "$1" "$2" "$3" "$(ratio "$3" "$2")" "<= 0.4 (husk/crun)"
    fi
    set -- $(vmrow vm-cpu-idle) - -
    row "VM: CPU budget overshoot ms, idle (median / max)" - - - "$1 / $2" - "<= 1 ms + tick/CPU + TCG pauses"
    set -- $(vmrow vm-cpu-stress) - -
    row "  the same beside stress-ng --cpu 4" - - - "$1 / $2" - "<= 1 ms + tick/CPU + TCG pauses"
fi

# 8. containerd in a second VM (more RAM: containerd, 15 shims, the CRI client): bench-shim.sh prints BENCHROW
# lines for three setups, runc's shim + runc (the runc column), runc's shim + husk, and husk's own shim,
# containerd-shim-husk-v2 (the husk column): PSS per running container in kB, the wall time of `ctr run --rm`
# and of a CRI pod's life in microseconds. The guest gets the image of busybox-image.sh and what
# tests/clients/cri-prepare.sh makes for the CRI client (cri.py, python, the pause image).
# shellcheck disable=SC2046 # (set -- $(shimrow KEY DIVISOR): numbers or "-", padded with "-")
if [ "$shim" = yes ]; then
    "$here/vm/install-deps.sh" >/dev/null
    mkdir "$work/shim-files"
    cp "$here/vm/bench/bench-shim.sh" "$work/shim-files/"
    "$here/clients/busybox-image.sh" "$work/shim-files"
    "$here/clients/cri-prepare.sh" "$work/shim-files" >/dev/null
    shim_start=$(date +%s)
    HUSK_BINARY=$husk HUSK_PROBE=${HUSK_PROBE:-$top/build/tests/probe} "$here/vm/run-in-vm.sh" --build "$top/build" \
        --timeout 1800 --memory 1024 --stage "$(command -v containerd)" --stage "$(command -v ctr)" \
        --stage "$(command -v containerd-shim-runc-v2)" --stage "$(command -v runc)" --files "$work/shim-files" \
        -- sh bench-shim.sh "$small" > "$work/shim.out" ||
        { cat "$work/shim.out" >&2; echo "bench: the containerd part in the VM failed" >&2; exit 1; }
    shim_seconds=$(($(date +%s) - shim_start))
    num='(-|-?[0-9]+)'
    grep -Ev "^BENCHROW vm-shim-[a-z]+( $num)+\$" "$work/shim.out" >&2 || true
    shimrow() { # KEY DIVISOR: the fields after the key (runc, runc's shim + husk, husk's shim) divided by DIVISOR
        grep -E "^BENCHROW $1( $num)+\$" "$work/shim.out" | tail -n 1 | awk -v d="$2" \
            '{ for (i = 3; i <= NF; i++) printf "%s%s", (i > 3 ? " " : ""), ($i == "-" ? "-" : sprintf(d == 1 ? "%d" : "%.1f", $i / d)) }'
    }
    set -- $(shimrow vm-shim-pss 1) - - -
    row "VM: PSS per running container (5 running), kB: husk's shim" - "$1" - "$3" "$(ratio "$3" "$1")" \
        "<= 0.2 (husk/runc) and <= 1024 kB"
    row "  runc's shim + husk (its monitor) in the husk column" - "$1" - "$2" "$(ratio "$2" "$1")" "-"
    set -- $(shimrow vm-shim-ctr 1000) - - -
    row "VM: \`ctr run --rm\` /bin/true, wall ms: husk's shim" - "$1" - "$3" "$(ratio "$3" "$1")" "<= 0.6 (husk/runc)"
    row "  runc's shim + husk in the husk column" - "$1" - "$2" "$(ratio "$2" "$1")" "-"
    set -- $(shimrow vm-shim-cri 1000) - - -
    row "VM: CRI pod, /bin/true to exit, removed, wall ms: husk's shim" - "$1" - "$3" "$(ratio "$3" "$1")" "<= 0.6 (husk/runc)"
    row "  runc's shim + husk in the husk column" - "$1" - "$2" "$(ratio "$2" "$1")" "-"
fi

# The table (Markdown, columns padded), then where and what was measured.
echo
awk -F '\t' '
    BEGIN {
        n = split("figure\tfloor\trunc\tcrun (VM)\thusk\tratio\tgoal", head, "\t")
        for (c = 1; c <= n; c++) { cell[0, c] = head[c]; w[c] = length(head[c]) }
    }
    { for (c = 1; c <= n; c++) { cell[NR, c] = $c; if (length($c) > w[c]) w[c] = length($c) } }
    END {  # the figure and goal columns flush left, the numbers flush right
        for (r = 0; r <= NR; r++) {
            line = "|"
            for (c = 1; c <= n; c++) line = line sprintf(c == 1 || c == n ? " %-*s |" : " %*s |", w[c], cell[r, c])
            print line
            if (r > 0) continue
            line = "|"
            for (c = 1; c <= n; c++) {
                d = ""
                for (k = 0; k < w[c]; k++) d = d "-"
                line = line (c == 1 || c == n ? ":" d "-|" : "-" d ":|")
            }
            print line
        }
    }' "$work/table"
buildtype=$(jq -r '.[] | select(.name == "buildtype") | .value' \
    "$(dirname "$(dirname "$(dirname "$husk")")")/meson-info/intro-buildoptions.json" 2>/dev/null || echo unknown)
echo
[ -z "${vm_seconds:-}" ] || in_vm=", $small in the VM (runc $(( small < 5 ? small : 5 )))"
[ -z "${shim_seconds:-}" ] || in_shim_vm=", $small in the containerd VM"
if [ "$host" = yes ]; then
    timings="median of $runs ($small for the CPU budget${in_vm:-}${in_shim_vm:-}), A/B interleaved; host part $host_seconds s"
else
    timings="median of $small, the three setups interleaved"
fi
echo "$(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, Linux $(uname -r), load average $(cut -d' ' -f1-3 /proc/loadavg);" \
    "husk at $commit ($buildtype build of $built);" \
    "timings: $timings${vm_seconds:+, VM part $vm_seconds s}${shim_seconds:+, containerd VM part $shim_seconds s}"
