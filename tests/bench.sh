#!/bin/sh
# Benchmark (not a test): N sequential `husk run` of /bin/true next to `runc run` of the same bundle,
# interleaved, in one invocation. Prints the median wall time (ms) and the peak RSS (KiB, GNU time's
# %M: the run command and the children it reaped) of each, and husk/runc ratios; the monitor's footprint and
# output throughput; the CPU budget's overshoot, idle and beside stress-ng. Then, in a throw-away VM with a
# pure cgroup v2 hierarchy (tests/vm/run-in-vm.sh), the same `run` with a 64 MiB memory limit for husk,
# Debian's runc and Debian's crun, and the CPU budget's overshoot with the cpu controller
# (tests/vm/bench/bench-guest.sh); -V skips the VM part, -c runs only the CPU budget's overshoot (host and VM).
#   tests/bench.sh [-n N] [-V] [-c] [HUSK_BINARY] (default N=50; husk from $HUSK_BINARY or build/src/cli/husk,
#                                                 the probe for the VM from the same build dir)
# runc runs through tests/runc-in-v2.sh (a private mount namespace with a pure cgroup v2 view), so
# neither runtime touches the host's cgroup v1 hierarchies.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
runs=50
vm=yes
cpu_only=no
while getopts n:Vc opt; do
    case $opt in
        n) runs=$OPTARG ;;
        V) vm=no ;;
        c) cpu_only=yes ;;
        *) echo "usage: $0 [-n N] [-V] [-c] [HUSK_BINARY]" >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
husk=${1:-${HUSK_BINARY:-$top/build/src/cli/husk}}
[ -x "$husk" ] || { echo "bench: husk binary not found at $husk (build it, or pass its path)" >&2; exit 1; }
husk=$(cd "$(dirname "$husk")" && pwd)/$(basename "$husk")

# Tools: runc and GNU time (for %M) from Debian, jq to derive the bench config, busybox for the rootfs.
missing=
command -v runc >/dev/null 2>&1 || missing="$missing runc"
[ -x /usr/bin/time ] || missing="$missing time"
command -v jq >/dev/null 2>&1 || missing="$missing jq"
[ -x /bin/busybox ] || missing="$missing busybox-static"
[ "$vm" = no ] || command -v crun >/dev/null 2>&1 || missing="$missing crun"
command -v stress-ng >/dev/null 2>&1 || missing="$missing stress-ng"
if [ -n "$missing" ]; then
    echo "bench: installing$missing" >&2
    apt-get install -y --no-install-recommends $missing >/dev/null
fi

rootfs=$top/bundles/busybox/rootfs
[ -x "$rootfs/usr/bin/busybox" ] || "$top/bundles/build-rootfs.sh" "$rootfs"

work=$(mktemp -d /tmp/husk-bench.XXXXXX)
cgroup2=$(grep ' - cgroup2 ' /proc/self/mountinfo | head -n 1 | cut -d' ' -f5)
controllers_before=$(cat "$cgroup2/cgroup.subtree_control" 2>/dev/null || true)
cleanup() {
    # runc enables every available controller in the v2 root's subtree_control; undo what it added.
    for c in $(cat "$cgroup2/cgroup.subtree_control" 2>/dev/null || true); do
        case " $controllers_before " in
            *" $c "*) ;;
            *) echo "-$c" > "$cgroup2/cgroup.subtree_control" 2>/dev/null || true ;;
        esac
    done
    rm -rf --one-file-system "$work"
}
trap cleanup EXIT INT TERM

mkdir -p "$work/bundle" "$work/husk-root" "$work/runc-root"
jq --arg rootfs "$rootfs" '.process.args = ["/bin/true"] | .process.terminal = false | .root.path = $rootfs' \
    "$top/bundles/busybox/config.json" > "$work/bundle/config.json"

# measure NAME RUN_COMMAND...: one timed run; appends microseconds and KiB to $work/NAME.{us,kib}.
measure() {
    name=$1
    shift
    start=$(date +%s%N)
    if ! /usr/bin/time -f %M -o "$work/rss" "$@" >/dev/null 2>"$work/err"; then
        echo "bench: $name failed: $*" >&2
        cat "$work/err" >&2
        exit 1
    fi
    end=$(date +%s%N)
    echo $(((end - start) / 1000)) >> "$work/$name.us"
    tail -n 1 "$work/rss" >> "$work/$name.kib"
}

median() { sort -n "$1" | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
peak() { sort -n "$1" | tail -n 1; }

# The runtimes side by side, then the monitor's footprint and throughput (skipped with -c).
if [ "$cpu_only" = no ]; then
    i=0
    while [ "$i" -lt "$runs" ]; do
        i=$((i + 1))
        measure husk "$husk" --root "$work/husk-root" run --bundle "$work/bundle" "bench-husk-$i"
        measure runc "$here/runc-in-v2.sh" --root "$work/runc-root" run --bundle "$work/bundle" "bench-runc-$i"
    done


    husk_ms=$(median "$work/husk.us" | awk '{ printf "%.2f", $1 / 1000 }')
    runc_ms=$(median "$work/runc.us" | awk '{ printf "%.2f", $1 / 1000 }')
    husk_kib=$(peak "$work/husk.kib")
    runc_kib=$(peak "$work/runc.kib")

    echo "runs: $runs each, interleaved; bundle: bundles/busybox (/bin/true)"
    printf '%-6s %14s %16s\n' runtime "median wall ms" "peak RSS KiB"
    printf '%-6s %14s %16s\n' husk "$husk_ms" "$husk_kib"
    printf '%-6s %14s %16s\n' runc "$runc_ms" "$runc_kib"
    awk -v hm="$husk_ms" -v rm="$runc_ms" -v hk="$husk_kib" -v rk="$runc_kib" \
        'BEGIN { printf "ratio husk/runc: wall %.2f, peak RSS %.2f\n", hm / rm, hk / rk }'

    # The monitor (DESIGN.md §3): its private memory while a container idles, with and without the output pump,
    # the CPU it uses meanwhile, and output throughput through a pipe with and without an output cap. `sync`
    # first: a freshly linked binary's pages count as dirty until they are written back.
    sync
    idle_bundle() { # NAME [HUSK_FLAGS...] -> creates, starts, prints "private_dirty_kib rss_kib cpu_ticks_over_2s"
        name=$1
        shift
        "$husk" --root "$work/husk-root" create --bundle "$work/idle" "$@" "$name" >/dev/null 2>&1 </dev/null
        "$husk" --root "$work/husk-root" start "$name"
        monitor=$(jq -r .monitorPid "$work/husk-root/$name/state.json")
        sleep 0.5
        ticks() { awk '{ print $14 + $15 }' "/proc/$monitor/stat"; }
        before=$(ticks)
        sleep 2
        after=$(ticks)
        awk -v t=$((after - before)) '/^Private_Dirty:/ { pd = $2 } /^Rss:/ { rss = $2 } END { print pd, rss, t }' \
            "/proc/$monitor/smaps_rollup"
        "$husk" --root "$work/husk-root" delete --force "$name"
    }
    mkdir -p "$work/idle" "$work/flood"
    jq '.process.args = ["/bin/sleep", "30"]' "$work/bundle/config.json" > "$work/idle/config.json"
    set -- $(idle_bundle bench-idle)
    plain_pd=$1 plain_rss=$2 plain_ticks=$3
    set -- $(idle_bundle bench-idle-cap --output-limit 1GiB --timeout 1h --cpu-limit 1h)
    pump_pd=$1 pump_rss=$2 pump_ticks=$3
    echo
    echo "monitor of an idle container (sleep 30): Private_Dirty / Rss KiB, CPU ticks over 2 s"
    printf '%-40s %8s %8s %6s\n' "" "PrivDirty" "Rss" "ticks"
    printf '%-40s %8s %8s %6s\n' "plain" "$plain_pd" "$plain_rss" "$plain_ticks"
    printf '%-40s %8s %8s %6s\n' "--output-limit --timeout --cpu-limit" "$pump_pd" "$pump_rss" "$pump_ticks"

    flood_mib=1024
    jq --arg n $((flood_mib * 16)) '.process.args = ["/bin/dd", "if=/dev/zero", "bs=65536", "count=" + $n]' \
        "$work/bundle/config.json" > "$work/flood/config.json"
    throughput() { # ID [HUSK_FLAGS...] -> MiB/s of `husk run` into a pipe read by cat
        id=$1
        shift
        start=$(date +%s%N)
        "$husk" --root "$work/husk-root" run --bundle "$work/flood" "$@" "$id" 2>/dev/null | cat > /dev/null
        end=$(date +%s%N)
        awk -v mib=$flood_mib -v ns=$((end - start)) 'BEGIN { printf "%.0f", mib / (ns / 1e9) }'
    }
    direct=$(throughput bench-flood-direct)
    pumped=$(throughput bench-flood-pumped --output-limit 2GiB)
    echo
    echo "output throughput, ${flood_mib} MiB from busybox dd (64 KiB writes) through a pipe to cat (MiB/s)"
    printf '%-40s %8s\n' "no cap (the container writes the pipe)" "$direct"
    printf '%-40s %8s\n' "--output-limit 2GiB (monitor splices)" "$pumped"
fi

# The CPU budget's precision (run.husk.cpu-limit): how far a busy loop gets past a 300 ms budget before the
# kill lands, over up to 20 runs, on an idle machine and beside `stress-ng --cpu 4`. The budget counts from
# exec, so the cgroup's usage_usec after create (init's setup) is subtracted from the final one. On this host
# the budget rests on the monitor's timer alone (cpu.stat is a cgroup v2 core file; the cpu controller, which
# the hold needs, is bound to cgroup v1 on a hybrid host).
cpu_runs=$(( runs < 20 ? runs : 20 ))
mkdir -p "$work/busy"
jq '.process.args = ["/bin/sh", "-c", "while :; do :; done"]' "$work/bundle/config.json" > "$work/busy/config.json"
overshoot() { # LABEL -> one line per run in $work/cpu-LABEL.us: microseconds past the budget
    j=0
    while [ "$j" -lt "$cpu_runs" ]; do
        j=$((j + 1))
        id=bench-cpu-$1-$j
        h() { "$husk" --root "$work/husk-root" "$@"; }
        h create --bundle "$work/busy" --cpu-limit 300ms "$id" >/dev/null 2>&1 </dev/null
        setup=$(awk '$1 == "usage_usec" { print $2 }' "$cgroup2$(h state "$id" | jq -r .husk.cgroupPath)/cpu.stat")
        h start "$id"
        while [ "$(h state "$id" | jq -r .status)" != stopped ]; do sleep 0.05; done
        h state "$id" > "$work/cpu-state"
        h delete "$id"
        if [ "$(jq -r .husk.exit.reason "$work/cpu-state")" != cpu-limit ]; then
            echo "bench: $id did not stop at its CPU budget:" >&2
            cat "$work/cpu-state" >&2
            exit 1
        fi
        jq ".husk.usage.cpuUsec - $setup - 300000" "$work/cpu-state" >> "$work/cpu-$1.us"
    done
}
overshoot idle
stress-ng --cpu 4 --timeout 600s >/dev/null 2>&1 &
hog=$!
sleep 1
overshoot stress
kill -INT "$hog"  # stress-ng stops its workers on SIGINT (stress-ng(1))
wait "$hog" 2>/dev/null || true
ms() { awk '{ printf "%.1f", $1 / 1000 }'; }
echo
echo "CPU budget 300ms of a busy loop: CPU used from exec past the budget (ms), $cpu_runs runs each"
printf '%-40s %8s %8s\n' "" median max
printf '%-40s %8s %8s\n' "idle" "$(median "$work/cpu-idle.us" | ms)" "$(peak "$work/cpu-idle.us" | ms)"
printf '%-40s %8s %8s\n' "beside stress-ng --cpu 4" "$(median "$work/cpu-stress.us" | ms)" \
    "$(peak "$work/cpu-stress.us" | ms)"

# The VM: TCG is much slower than the host, so fewer runs; the guest prints its own table.
if [ "$vm" = yes ]; then
    "$here/vm/install-deps.sh" >/dev/null
    vm_runs=$(( runs < 20 ? runs : 20 ))
    echo
    HUSK_BINARY=$husk "$here/vm/run-in-vm.sh" --build "$(dirname "$(dirname "$(dirname "$husk")")")" \
        --stage "$(command -v runc)" --stage "$(command -v crun)" --stage "$(command -v stress-ng)" \
        --files "$here/vm/bench" \
        -- sh bench-guest.sh "$vm_runs" "$([ "$cpu_only" = yes ] && echo cpu || echo all)"
fi
