#!/bin/sh
# The in-VM half of tests/bench.sh, on the guest's pure cgroup v2 hierarchy, with husk, runc and crun
# (Debian's, staged with run-in-vm.sh --stage); every runtime reads the same bundle (/bin/true, a 64 MiB
# memory limit). Runs in the guest:  sh bench-guest.sh N [all|cpu]   (cpu: the CPU budget's overshoot only)
# It prints one machine-readable line per figure for the host to fold into its table, in microseconds:
#   BENCHROW vm-run RUNC CRUN HUSK        median wall of `run`, N runs interleaved (runc: the first 5)
#   BENCHROW vm-csd RUNC CRUN HUSK        median wall of create, start, state until stopped, delete
#   BENCHROW vm-cpu-idle MEDIAN MAX       the CPU budget's overshoot, idle
#   BENCHROW vm-cpu-stress MEDIAN MAX     the same beside stress-ng --cpu 4 (or 4 shell busy loops)
# ("-" for a runtime that is not there). The lines cross a serial port: each is written whole, in one
# printf, and the host takes only lines that match this shape exactly; anything else is a message.
set -u
runs=${1:-20}
part=${2:-all}
work=$(mktemp -d /tmp/bench.XXXXXX)
trap 'rm -rf "$work"' EXIT

# The bundle: the example config with /bin/true, a memory limit, no terminal, and (for crun 1.8, which
# refuses newer versions) ociVersion 1.0.2.
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

fail() { echo "bench: $*" >&2; cat "$work/err" >&2; exit 1; }
quiet() { "$@" >/dev/null 2>"$work/err" </dev/null; }
stopped() { "$1" --root "$work/root-$1" state "$2" 2>/dev/null | grep -q '"status": *"stopped"'; }
# cycle RUNTIME ID: what containerd does, one verb per call: create, start, state until it has stopped, delete.
cycle() {
    quiet "$1" --root "$work/root-$1" create --bundle "$work/bundle" "$2" || fail "$1 create $2 failed"
    quiet "$1" --root "$work/root-$1" start "$2" || fail "$1 start $2 failed"
    until stopped "$1" "$2"; do :; done
    quiet "$1" --root "$work/root-$1" delete "$2" || fail "$1 delete $2 failed"
}
# measure NAME COMMAND...: one run, its wall time in microseconds appended to $work/NAME.us.
measure() {
    name=$1
    shift
    start=$(probe now)
    "$@" >/dev/null </dev/null || { echo "bench: $name failed: $*" >&2; exit 1; }
    end=$(probe now)
    echo $((end - start)) >> "$work/$name.us"
}
median() { sort -n "$1" | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : int((v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
peak() { sort -n "$1" | tail -n 1; }
figure() { if [ -s "$work/$1.us" ]; then median "$work/$1.us"; else echo -; fi; }

if [ "$part" = all ]; then
    runtimes=husk
    for r in runc crun; do command -v "$r" >/dev/null 2>&1 && runtimes="$runtimes $r"; done
    i=0
    while [ "$i" -lt "$runs" ]; do
        i=$((i + 1))
        # runc takes seconds per call under TCG: its figures come from the first 5 rounds only.
        [ "$i" -le 5 ] || runtimes=$(echo "$runtimes" | sed 's/ runc//')
        for r in $runtimes; do measure "run-$r" "$r" --root "$work/root-$r" run --bundle "$work/bundle" "run-$r-$i"; done
        for r in $runtimes; do measure "csd-$r" cycle "$r" "csd-$r-$i"; done
    done
    printf 'BENCHROW vm-run %s %s %s\n' "$(figure run-runc)" "$(figure run-crun)" "$(figure run-husk)"
    printf 'BENCHROW vm-csd %s %s %s\n' "$(figure csd-runc)" "$(figure csd-crun)" "$(figure csd-husk)"
fi

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
        husk --root "$work/root-cpu" create --bundle "$work/busy" --cpu-limit 300ms "$id" >/dev/null 2>"$work/cpu-err" \
            </dev/null || { echo "bench: create $id failed:" >&2; cat "$work/cpu-err" >&2; exit 1; }
        # The budget counts from exec: init's setup before it (slow under TCG) is subtracted.
        setup=$(awk '$1 == "usage_usec" { print $2 }' "/sys/fs/cgroup/husk/$id/cpu.stat")
        husk --root "$work/root-cpu" start "$id" || { echo "bench: start $id failed" >&2; exit 1; }
        # Bounded: a container that never stops is a failure to report, not a bench that runs until its timeout.
        polls=0
        while ! husk --root "$work/root-cpu" state "$id" | grep -q '"status": "stopped"'; do
            polls=$((polls + 1))
            [ "$polls" -lt 1200 ] || { echo "bench: $id did not stop within a minute:" >&2; husk --root "$work/root-cpu" state "$id" >&2; exit 1; }
            sleep 0.05
        done
        husk --root "$work/root-cpu" state "$id" > "$work/cpu-state"
        husk --root "$work/root-cpu" delete "$id"
        grep -q '"reason": "cpu-limit"' "$work/cpu-state" || { echo "bench: no cpu-limit:" >&2; cat "$work/cpu-state" >&2; exit 1; }
        sed -n 's/.*"cpuUsec": *\([0-9]*\).*/\1/p' "$work/cpu-state" | awk -v s="$setup" '{ print $1 - s - 300000 }' \
            >> "$work/cpu-$1.us"
    done
}
overshoot idle
if command -v stress-ng >/dev/null 2>&1; then
    stress-ng --cpu 4 --timeout 600s >/dev/null 2>&1 &
    hogs=$!
    stop=INT  # stress-ng stops its workers on SIGINT (stress-ng(1))
else
    echo "bench: no stress-ng in the guest: 4 shell busy loops instead" >&2
    hogs=
    stop=TERM  # background jobs of a script ignore SIGINT
    for _ in 1 2 3 4; do sh -c 'while :; do :; done' & hogs="$hogs $!"; done
fi
sleep 1
overshoot stress
# shellcheck disable=SC2086 # (a list of pids)
kill -$stop $hogs
wait 2>/dev/null
printf 'BENCHROW vm-cpu-idle %s %s\n' "$(median "$work/cpu-idle.us")" "$(peak "$work/cpu-idle.us")"
printf 'BENCHROW vm-cpu-stress %s %s\n' "$(median "$work/cpu-stress.us")" "$(peak "$work/cpu-stress.us")"
