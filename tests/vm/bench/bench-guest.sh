#!/bin/sh
# The in-VM half of tests/bench.sh: N interleaved `run` of /bin/true with a 64 MiB memory limit, by husk,
# runc and crun (Debian's, staged with run-in-vm.sh --stage), on the guest's pure cgroup v2 hierarchy.
# Prints the median wall time of each, then the CPU budget's overshoot. Runs in the guest:
# sh bench-guest.sh N [all|cpu]   (cpu: the CPU budget's overshoot only)
set -u
runs=${1:-20}
part=${2:-all}
work=$(mktemp -d /tmp/bench.XXXXXX)
trap 'rm -rf "$work"' EXIT

# One bundle per runtime: the example config with /bin/true, a memory limit, no terminal, and (for crun
# 1.8, which refuses newer versions) ociVersion 1.0.2. Every runtime reads the same rootfs.
make_bundle() { # DIR
    mkdir -p "$1"
    awk '
        /"ociVersion"/ { print "  \"ociVersion\": \"1.0.2\","; next }
        /"terminal":/ { sub(/true/, "false") }
        /"args": \[/ { print "    \"args\": [\"/bin/true\"],"; skip = 1; next }
        skip { if ($0 ~ /^ *\],? *$/) skip = 0; next }
        /"path": "rootfs"/ { sub(/"rootfs"/, "\"/bundles/busybox/rootfs\"") }
        /"resources": \{/ { print; print "      \"memory\": { \"limit\": 67108864, \"swap\": 67108864 },"; next }
        { print }
    ' /bundles/busybox/config.json > "$1/config.json"
    grep -q '"limit": 67108864' "$1/config.json" || { echo "bench: could not add the memory limit" >&2; exit 1; }
}
make_bundle "$work/bundle"

# measure NAME COMMAND...: one run, microseconds appended to $work/NAME.us.
measure() {
    name=$1
    shift
    start=$(probe now)
    if ! "$@" >/dev/null 2>"$work/err"; then
        echo "bench: $name failed: $*" >&2
        cat "$work/err" >&2
        exit 1
    fi
    end=$(probe now)
    echo $((end - start)) >> "$work/$name.us"
}

median() { sort -n "$1" | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
if [ "$part" = all ]; then
    runtimes="husk"
    for r in runc crun; do command -v "$r" >/dev/null 2>&1 && runtimes="$runtimes $r"; done
    i=0
    while [ "$i" -lt "$runs" ]; do
        i=$((i + 1))
        for r in $runtimes; do
            measure "$r" "$r" --root "$work/root-$r" run --bundle "$work/bundle" "bench-$r-$i"
        done
    done

    echo "in the VM (TCG, pure cgroup v2), memory.limit 64 MiB, runs: $runs each, interleaved"
    printf '%-6s %14s\n' runtime "median wall ms"
    for r in $runtimes; do
        printf '%-6s %14s\n' "$r" "$(median "$work/$r.us" | awk '{ printf "%.1f", $1 / 1000 }')"
    done
fi

peak() { sort -n "$1" | tail -n 1; }
ms() { awk '{ printf "%.1f", $1 / 1000 }'; }

# The CPU budget's precision with the cpu controller (the kernel holds the container to what is left, see
# husk(8) LIMITS): how far a busy loop gets past a 300 ms budget, idle and beside `stress-ng --cpu 4` (staged
# by tests/bench.sh; four shell loops when it is not there).
mkdir -p "$work/busy"
sed 's|"args": \["/bin/true"\]|"args": ["/bin/sh", "-c", "while :; do :; done"]|' "$work/bundle/config.json" \
    > "$work/busy/config.json"
overshoot() { # LABEL -> one line per run in $work/cpu-LABEL.us: microseconds past the budget, from exec
    j=0
    while [ "$j" -lt "$runs" ]; do
        j=$((j + 1))
        id=cpu-$1-$j
        husk --root "$work/root-cpu" create --bundle "$work/busy" --cpu-limit 300ms "$id" >/dev/null 2>&1 </dev/null
        # The budget counts from exec: init's setup before it (slow under TCG) is subtracted.
        setup=$(awk '$1 == "usage_usec" { print $2 }' "/sys/fs/cgroup/husk/$id/cpu.stat")
        husk --root "$work/root-cpu" start "$id"
        while ! husk --root "$work/root-cpu" state "$id" | grep -q '"status": "stopped"'; do sleep 0.05; done
        husk --root "$work/root-cpu" state "$id" > "$work/cpu-state"
        husk --root "$work/root-cpu" delete "$id"
        grep -q '"reason": "cpu-limit"' "$work/cpu-state" || { echo "bench: no cpu-limit:" >&2; cat "$work/cpu-state" >&2; exit 1; }
        sed -n 's/.*"cpuUsec": *\([0-9]*\).*/\1/p' "$work/cpu-state" | awk -v s="$setup" '{ print $1 - s - 300000 }' \
            >> "$work/cpu-$1.us"
    done
}
overshoot idle
if command -v stress-ng >/dev/null 2>&1; then
    hog_name="stress-ng --cpu 4"
    stress-ng --cpu 4 --timeout 600s >/dev/null 2>&1 &
    hogs=$!
    stop=INT  # stress-ng stops its workers on SIGINT (stress-ng(1))
else
    hog_name="4 shell busy loops"
    hogs=
    stop=TERM  # background jobs of a script ignore SIGINT
    for k in 1 2 3 4; do sh -c 'while :; do :; done' & hogs="$hogs $!"; done
fi
sleep 1
overshoot stress
kill -$stop $hogs
wait 2>/dev/null
echo
echo "in the VM, CPU budget 300ms of a busy loop: CPU used from exec past the budget (ms), $runs runs each"
printf '%-40s %8s %8s\n' "" median max
printf '%-40s %8s %8s\n' "idle" "$(median "$work/cpu-idle.us" | ms)" "$(peak "$work/cpu-idle.us" | ms)"
printf '%-40s %8s %8s\n' "beside $hog_name" "$(median "$work/cpu-stress.us" | ms)" "$(peak "$work/cpu-stress.us" | ms)"
